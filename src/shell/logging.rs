//! klog-style logging on top of `log` + `env_logger`.
//!
//! Lines look like kube-scheduler's so existing log searches keep working:
//! `I1017 10:59:24.725039   12345 schedule_one] "Successfully bound pod to node" pod="ns/p" node="n1"`.
//! `--v` maps onto levels as klog verbosity does in practice: 0–2 info, 3–4 debug, 5+ trace.
//! `RUST_LOG` still overrides per module for debugging. The lines themselves are built with
//! [`crate::core::logging::Line`].

use std::io::Write as _;
use std::time::SystemTime;

/// Map `--v` to a log level filter.
pub fn level_for_verbosity(v: u32) -> log::LevelFilter {
    match v {
        0..=2 => log::LevelFilter::Info,
        3..=4 => log::LevelFilter::Debug,
        _ => log::LevelFilter::Trace,
    }
}

/// Install the logger (idempotent: a second call is ignored).
pub fn init(verbosity: u32) {
    let mut b = env_logger::Builder::new();
    b.filter_level(level_for_verbosity(verbosity));
    // Dependencies are only interesting when debugging them.
    b.filter_module("ureq", log::LevelFilter::Warn);
    b.filter_module("ureq_proto", log::LevelFilter::Warn);
    b.filter_module("rustls", log::LevelFilter::Warn);
    if let Ok(spec) = std::env::var("RUST_LOG") {
        b.parse_filters(&spec);
    }
    let pid = std::process::id();
    b.format(move |buf, record| {
        let sev = match record.level() {
            log::Level::Error => 'E',
            log::Level::Warn => 'W',
            log::Level::Info => 'I',
            log::Level::Debug | log::Level::Trace => 'I',
        };
        let module = record.module_path().unwrap_or("edgesched");
        let short = module.rsplit("::").next().unwrap_or(module);
        writeln!(buf, "{sev}{} {pid:>7} {short}] {}", klog_timestamp(SystemTime::now()), record.args())
    });
    b.target(env_logger::Target::Stderr);
    let _ = b.try_init();
}

/// `MMDD HH:MM:SS.uuuuuu` in UTC, as klog prints.
pub fn klog_timestamp(t: SystemTime) -> String {
    let s = crate::core::timefmt::format_micro(t); // YYYY-MM-DDTHH:MM:SS.uuuuuuZ
    if s.len() < 27 {
        return s;
    }
    format!("{}{} {}", &s[5..7], &s[8..10], &s[11..26])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_levels() {
        let t = crate::core::timefmt::parse_system_time("2025-10-17T10:59:24.725039Z").expect("time");
        assert_eq!(klog_timestamp(t), "1017 10:59:24.725039");
        assert_eq!(level_for_verbosity(2), log::LevelFilter::Info);
        assert_eq!(level_for_verbosity(4), log::LevelFilter::Debug);
        assert_eq!(level_for_verbosity(10), log::LevelFilter::Trace);
    }
}
