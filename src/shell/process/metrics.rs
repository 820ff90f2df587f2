//! The `process_*` metrics, read from `/proc` at each scrape as client_golang's process
//! collector does (`prometheus/process_collector_procfs.go`): CPU time, memory, file
//! descriptors, start time and network bytes. A file that cannot be read leaves its metric at
//! the last value (client_golang reports a collection error instead; a scrape never fails here).

use crate::core::metrics::{names as m, Metrics};

/// Read `/proc/self` and set the `process_*` metrics.
pub fn collect(metrics: &Metrics) {
    // SAFETY: sysconf and getpagesize only read process-wide constants.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
    if let Some(stat) = read("/proc/self/stat").and_then(|s| Stat::parse(&s)) {
        if ticks > 0 {
            let ticks = ticks as f64;
            metrics.set(m::PROCESS_CPU, &[], (stat.utime + stat.stime) as f64 / ticks);
            if let Some(boot) = read("/proc/stat").and_then(|s| boot_time(&s)) {
                metrics.set(m::PROCESS_START_TIME, &[], boot as f64 + stat.starttime as f64 / ticks);
            }
        }
        metrics.set(m::PROCESS_VIRTUAL_MEMORY, &[], stat.vsize as f64);
        metrics.set(m::PROCESS_RESIDENT_MEMORY, &[], (stat.rss.max(0) as f64) * (page.max(0) as f64));
    }
    if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
        metrics.set(m::PROCESS_OPEN_FDS, &[], dir.count() as f64);
    }
    if let Some(limits) = read("/proc/self/limits") {
        if let Some(v) = soft_limit(&limits, "Max open files") {
            metrics.set(m::PROCESS_MAX_FDS, &[], v);
        }
        if let Some(v) = soft_limit(&limits, "Max address space") {
            metrics.set(m::PROCESS_VIRTUAL_MEMORY_MAX, &[], v);
        }
    }
    if let Some((rx, tx)) = read("/proc/self/net/netstat").and_then(|s| ip_octets(&s)) {
        metrics.set(m::PROCESS_NETWORK_RECEIVE, &[], rx as f64);
        metrics.set(m::PROCESS_NETWORK_TRANSMIT, &[], tx as f64);
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The fields of `/proc/self/stat` the collector reports.
#[derive(Debug, PartialEq, Eq)]
struct Stat {
    utime: u64,
    stime: u64,
    starttime: u64,
    vsize: u64,
    rss: i64,
}

impl Stat {
    /// Fields after the parenthesised command name (which may itself contain spaces and ')').
    fn parse(s: &str) -> Option<Stat> {
        let rest = &s[s.rfind(')')? + 1..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        // f[0] is field 3 (state): field n is f[n - 3].
        let field = |n: usize| f.get(n - 3).and_then(|v| v.parse::<i64>().ok());
        Some(Stat {
            utime: field(14)?.max(0) as u64,
            stime: field(15)?.max(0) as u64,
            starttime: field(22)?.max(0) as u64,
            vsize: field(23)?.max(0) as u64,
            rss: field(24)?,
        })
    }
}

/// `btime` of `/proc/stat`.
fn boot_time(s: &str) -> Option<u64> {
    s.lines().find_map(|l| l.strip_prefix("btime ")).and_then(|v| v.trim().parse().ok())
}

/// The soft limit of a `/proc/self/limits` row; "unlimited" is the largest uint64, as procfs reads it.
fn soft_limit(limits: &str, row: &str) -> Option<f64> {
    let line = limits.lines().find(|l| l.starts_with(row))?;
    let soft = line[row.len()..].split_whitespace().next()?;
    if soft == "unlimited" {
        return Some(u64::MAX as f64);
    }
    soft.parse::<u64>().ok().map(|v| v as f64)
}

/// `IpExt: InOctets OutOctets` of `/proc/self/net/netstat` (a header line, then a value line).
fn ip_octets(s: &str) -> Option<(u64, u64)> {
    let mut lines = s.lines().filter(|l| l.starts_with("IpExt:"));
    let header: Vec<&str> = lines.next()?.split_whitespace().collect();
    let values: Vec<&str> = lines.next()?.split_whitespace().collect();
    let get = |name: &str| header.iter().position(|h| *h == name).and_then(|i| values.get(i)).and_then(|v| v.parse().ok());
    Some((get("InOctets")?, get("OutOctets")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_files() {
        let stat = "1234 (edge sched) (x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 12345 104857600 2048 18446744073709551615";
        assert_eq!(Stat::parse(stat), Some(Stat { utime: 250, stime: 50, starttime: 12345, vsize: 104857600, rss: 2048 }));
        assert_eq!(boot_time("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n"), Some(1_700_000_000));
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1048576              1048576              files\nMax address space         unlimited            unlimited            bytes\n";
        assert_eq!(soft_limit(limits, "Max open files"), Some(1048576.0));
        assert_eq!(soft_limit(limits, "Max address space"), Some(u64::MAX as f64));
        let netstat = "TcpExt: A B\nTcpExt: 1 2\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 1000 2000\n";
        assert_eq!(ip_octets(netstat), Some((1000, 2000)));
    }

    #[test]
    fn collects_from_this_process() {
        let m = Metrics::new();
        collect(&m);
        assert!(m.value(m::PROCESS_RESIDENT_MEMORY, &[]) > 0.0);
        assert!(m.value(m::PROCESS_OPEN_FDS, &[]) >= 1.0);
        assert!(m.value(m::PROCESS_START_TIME, &[]) > 1.0e9);
    }
}
