//! The log output kube-scheduler's operators expect: klog's text format or, with
//! `--logging-format=json`, component-base's JSON (both rendered by `crate::core::logging`),
//! filtered by `--v` as klog filters `V(n)`.
//!
//! Output goes to stderr. As component-base's `Factory.Create` does, `--log-json-split-stream`
//! (and `--log-text-split-stream`) sends info lines to stdout and errors to stderr, and
//! `--log-json-info-buffer-size` (`--log-text-info-buffer-size`) buffers stdout, flushed every
//! `--log-flush-frequency` and at exit ([`flush`]).
//!
//! Records of the `log` facade (dependencies such as rustls and ureq) are bridged in: warnings
//! and errors keep their severity, `debug` is V(4) and `trace` V(5); the dependencies' own
//! chatter below warning is dropped.

use crate::core::logging::{self, Entry, Line, Severity, Sink};
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `--logging-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

impl Format {
    /// The registered format names (component-base's registry: `text`, `json`).
    pub fn parse(v: &str) -> Option<Format> {
        match v {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// What the logging flags ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub verbosity: u8,
    pub format: Format,
    /// Info to stdout, errors to stderr.
    pub split_stream: bool,
    /// Bytes of stdout buffering when split (0: unbuffered); capped at 2 GiB as upstream.
    pub info_buffer_size: u64,
    /// How often buffered output is flushed (`--log-flush-frequency`, default 5s).
    pub flush_frequency: Duration,
    /// `--vmodule` (text format only, as upstream validates).
    pub vmodule: Vec<(String, u8)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            verbosity: 0,
            format: Format::Text,
            split_stream: false,
            info_buffer_size: 0,
            flush_frequency: Duration::from_secs(5),
            vmodule: Vec::new(),
        }
    }
}

/// The installed writer.
struct Writer {
    format: Format,
    pid: u32,
    /// Info lines when split (stdout, possibly buffered).
    info: Option<Mutex<BufWriter<std::io::Stdout>>>,
}

impl Writer {
    fn render(&self, entry: &Entry<'_>) -> String {
        let now = SystemTime::now();
        match self.format {
            Format::Text => logging::text::format(entry, &klog_timestamp(now), self.pid),
            Format::Json => {
                let millis = now.duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as f64 / 1e6).unwrap_or(0.0);
                logging::json::format(entry, millis)
            }
        }
    }

    fn flush(&self) {
        if let Some(info) = &self.info {
            if let Ok(mut w) = info.lock() {
                let _ = w.flush();
            }
        }
    }
}

struct Shared(Arc<Writer>);

impl Sink for Shared {
    fn write(&self, entry: &Entry<'_>) {
        let text = self.0.render(entry);
        match &self.0.info {
            Some(info) if entry.severity != Severity::Error => {
                if let Ok(mut w) = info.lock() {
                    let _ = w.write_all(text.as_bytes());
                    if w.capacity() == 0 {
                        let _ = w.flush();
                    }
                }
            }
            _ => {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
        }
    }
}

static WRITER: OnceLock<Arc<Writer>> = OnceLock::new();

/// Install the logger (a second call only changes the verbosity).
pub fn init(opts: &Options) {
    let writer = WRITER.get_or_init(|| {
        let info = opts.split_stream.then(|| {
            let size = usize::try_from(opts.info_buffer_size.min(2 * 1024 * 1024 * 1024)).unwrap_or(usize::MAX);
            Mutex::new(BufWriter::with_capacity(size, std::io::stdout()))
        });
        let w = Arc::new(Writer { format: opts.format, pid: std::process::id(), info });
        if opts.split_stream && opts.info_buffer_size > 0 {
            let flusher = Arc::clone(&w);
            let every = opts.flush_frequency.max(Duration::from_millis(10));
            let _ = std::thread::Builder::new().name("log-flush".into()).spawn(move || loop {
                std::thread::sleep(every);
                flusher.flush();
            });
        }
        w
    });
    logging::install(Box::new(Shared(Arc::clone(writer))), opts.verbosity);
    if !opts.vmodule.is_empty() {
        logging::install_vmodule(opts.vmodule.clone());
    }
    let _ = log::set_boxed_logger(Box::new(Bridge));
    // Records the verbosity would drop are never built: the HTTP and TLS libraries log at debug
    // and trace level on every request and read, a dynamic call each when let through.
    log::set_max_level(match (opts.vmodule.is_empty(), opts.verbosity) {
        (false, _) | (true, 5..) => log::LevelFilter::Trace,
        (true, 4) => log::LevelFilter::Debug,
        (true, _) => log::LevelFilter::Info,
    });
}

/// Write out buffered lines (at exit).
pub fn flush() {
    if let Some(w) = WRITER.get() {
        w.flush();
    }
}

/// `log` records into klog entries.
struct Bridge;

impl Bridge {
    fn level(meta: &log::Metadata<'_>) -> Option<(Severity, u8)> {
        let dependency = !meta.target().starts_with("edgesched");
        match meta.level() {
            log::Level::Error => Some((Severity::Error, 0)),
            log::Level::Warn => Some((Severity::Warning, 0)),
            _ if dependency => None,
            log::Level::Info => Some((Severity::Info, 0)),
            log::Level::Debug => Some((Severity::Info, 4)),
            log::Level::Trace => Some((Severity::Info, 5)),
        }
    }
}

impl log::Log for Bridge {
    fn enabled(&self, meta: &log::Metadata<'_>) -> bool {
        Bridge::level(meta).is_some_and(|(_, v)| logging::enabled(v))
    }

    fn log(&self, record: &log::Record<'_>) {
        let Some((severity, v)) = Bridge::level(record.metadata()) else { return };
        if !logging::enabled(v) {
            return;
        }
        let line = Line::new(record.args().to_string());
        logging::emit_from(severity, v, &line, record.file().unwrap_or("edgesched"), record.line().unwrap_or(0));
    }

    fn flush(&self) {
        flush();
    }
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
    fn timestamps_and_formats() {
        let t = crate::core::timefmt::parse_system_time("2025-10-17T10:59:24.725039Z").expect("time");
        assert_eq!(klog_timestamp(t), "1017 10:59:24.725039");
        assert_eq!(Format::parse("json"), Some(Format::Json));
        assert_eq!(Format::parse("JSON"), None);
    }
}
