//! Running the real `edgesched` binary as a child process: arguments, captured logs (stderr),
//! signals, and a standard setup (kubeconfig + KubeSchedulerConfiguration) against a
//! [`TestApiServer`].

use super::apiserver::{KubeAuth, TestApiServer};
use super::wait::{tempdir, wait_until, TempDir};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Path of the binary under test: the one Cargo built for the integration tests, or
/// `EDGESCHED_TEST_BINARY` (e.g. the static arm64 release binary, to run the same tests on it).
pub fn binary() -> PathBuf {
    match std::env::var_os("EDGESCHED_TEST_BINARY") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_edgesched")),
    }
}

/// An example binary (a custom edgesched built with the plugin API, `examples/<name>/`), next
/// to the edgesched binary Cargo built for these tests; built here when missing or older than
/// that binary (e.g. when only one test target was built).
pub fn example_binary(name: &str) -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_edgesched"));
    let path = bin.parent().map(|d| d.join("examples").join(name)).unwrap_or_default();
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&path).is_none() || modified(&path) < modified(&bin) {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--locked", "--example", name])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap_or_else(|e| panic!("cargo build --example {name}: {e}"));
        assert!(status.success(), "building the example {name} failed");
    }
    path
}

/// A command that runs the binary under test, through `EDGESCHED_TEST_RUNNER` when set: a
/// program and its arguments separated by spaces (e.g. `qemu-aarch64-static` for a
/// foreign-architecture binary, `qemu-aarch64-static -p 65536` for one on 64 KiB pages).
pub fn command() -> Command {
    let runner = std::env::var("EDGESCHED_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut c = Command::new(program);
            c.args(words).arg(binary());
            c
        }
        None => Command::new(binary()),
    }
}

/// A port that was free a moment ago (for `--secure-port`), taken below the kernel's ephemeral
/// range: a port from that range can be taken by any outgoing connection between this check and
/// the scheduler's bind (seen on a loaded machine as "Address already in use"), while ports below
/// it are only ever taken by listeners that ask for them. Each test process walks its own
/// stretch of them; the kernel's choice is the fallback.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const SPAN: u32 = 10_000;
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next().and_then(|v| v.parse::<u32>().ok()))
        .unwrap_or(0);
    if ephemeral_low > SPAN + 1024 {
        let low = ephemeral_low - SPAN;
        let start = std::process::id().wrapping_mul(97) % SPAN;
        for _ in 0..200 {
            let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed)) % SPAN;
            let Ok(port) = u16::try_from(low + offset) else { break };
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(0)
}

/// A running edgesched.
pub struct Edgesched {
    child: Child,
    logs: Arc<Mutex<String>>,
    pub secure_port: u16,
    /// The process's scratch directory (config, kubeconfig), removed when this is dropped.
    pub dir: PathBuf,
    _scratch: TempDir,
}

const MAX_LOG_BYTES: usize = 8 * 1024 * 1024;

impl Edgesched {
    /// Start the binary with these arguments.
    pub fn spawn(args: &[String], dir: TempDir, secure_port: u16) -> Edgesched {
        Edgesched::spawn_with_env(args, &[], dir, secure_port)
    }

    /// Start the binary with these arguments and extra environment variables; `dir` (its files)
    /// lives as long as the process handle.
    pub fn spawn_with_env(args: &[String], env: &[(String, String)], dir: TempDir, secure_port: u16) -> Edgesched {
        Edgesched::spawn_program(command(), args, env, dir, secure_port)
    }

    /// Start `program` (the binary under test, or a custom build such as an example) with these
    /// arguments and extra environment variables.
    pub fn spawn_program(
        mut program: Command,
        args: &[String],
        env: &[(String, String)],
        dir: TempDir,
        secure_port: u16,
    ) -> Edgesched {
        let mut child = program
            .args(args)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn edgesched");
        let logs = Arc::new(Mutex::new(String::new()));
        for stream in [
            child.stderr.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child.stdout.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let logs = logs.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    if std::env::var_os("EDGESCHED_TEST_ECHO").is_some() {
                        eprintln!("[edgesched] {line}");
                    }
                    let mut l = logs.lock().expect("log lock");
                    if l.len() < MAX_LOG_BYTES {
                        l.push_str(&line);
                        l.push('\n');
                    }
                }
            });
        }
        Edgesched { child, logs, secure_port, dir: dir.to_path_buf(), _scratch: dir }
    }

    /// Wait until `server` has the pod `ns/name` bound; its node. Panics with this process's logs
    /// when `timeout` passes first.
    pub fn wait_bound(&self, server: &TestApiServer, ns: &str, name: &str, timeout: Duration) -> String {
        super::wait::wait_for(timeout, &format!("{ns}/{name} bound"), || server.pod_node(ns, name))
            .unwrap_or_else(|e| panic!("{e}\n{}", self.logs()))
    }

    /// Everything the process logged so far.
    pub fn logs(&self) -> String {
        self.logs.lock().expect("log lock").clone()
    }

    /// Wait until the logs contain `needle`.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> Result<(), String> {
        wait_until(timeout, &format!("log line containing {needle:?}"), || self.logs().contains(needle))
            .map_err(|e| format!("{e}\n--- logs ---\n{}", self.logs()))
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Send SIGTERM (graceful shutdown).
    pub fn terminate(&self) {
        unsafe { libc::kill(self.pid(), libc::SIGTERM) };
    }

    /// Send SIGKILL.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Wait for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Still running?
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Resident set size in KiB (from /proc), for memory-bound checks.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
    }
}

impl Drop for Edgesched {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How to start edgesched for a test.
pub struct Launch {
    pub scheduler_names: Vec<String>,
    pub leader_elect: bool,
    pub lease_name: String,
    /// Extra top-level config YAML (e.g. `percentageOfNodesToScore: 100`).
    pub extra_config: String,
    /// Extra profile YAML appended under the first profile (indented by the caller).
    pub profile_extra: String,
    pub extra_args: Vec<String>,
    pub secure_port: Option<u16>,
    pub auth: KubeAuth,
    /// Extra environment variables (e.g. `EDGESCHED_WATCH_IDLE_TIMEOUT`).
    pub env: Vec<(String, String)>,
    /// Run this binary instead of edgesched (a custom build with extra plugins).
    pub program: Option<PathBuf>,
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            scheduler_names: vec!["edgesched".into()],
            leader_elect: false,
            lease_name: "edgesched".into(),
            extra_config: String::new(),
            profile_extra: String::new(),
            extra_args: Vec::new(),
            secure_port: None,
            auth: KubeAuth::ClientCert { user: "system:kube-scheduler".into() },
            env: Vec::new(),
            program: None,
        }
    }
}

impl Launch {
    /// Write kubeconfig and config files and start edgesched against `server`.
    pub fn start(self, server: &TestApiServer) -> Edgesched {
        let dir = tempdir("edgesched-e2e");
        let kubeconfig = server.write_kubeconfig(&dir, self.auth.clone());
        let mut profiles = String::new();
        for (i, name) in self.scheduler_names.iter().enumerate() {
            profiles.push_str(&format!("- schedulerName: {name}\n"));
            if i == 0 && !self.profile_extra.is_empty() {
                profiles.push_str(&self.profile_extra);
                if !self.profile_extra.ends_with('\n') {
                    profiles.push('\n');
                }
            }
        }
        let config = format!(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: {}\n  qps: -1\nleaderElection:\n  leaderElect: {}\n  resourceNamespace: kube-system\n  resourceName: {}\n  leaseDuration: 4s\n  renewDeadline: 3s\n  retryPeriod: 500ms\n{}profiles:\n{}",
            kubeconfig.display(),
            self.leader_elect,
            self.lease_name,
            self.extra_config,
            profiles
        );
        let config_path = dir.join("config.yaml");
        std::fs::write(&config_path, config).expect("write config");
        let port = self.secure_port.unwrap_or_else(free_port);
        let mut args = vec![
            format!("--config={}", config_path.display()),
            format!("--secure-port={port}"),
            "--bind-address=127.0.0.1".to_string(),
            "--v=2".to_string(),
        ];
        args.extend(self.extra_args);
        match &self.program {
            Some(p) => Edgesched::spawn_program(Command::new(p), &args, &self.env, dir, port),
            None => Edgesched::spawn_with_env(&args, &self.env, dir, port),
        }
    }
}
