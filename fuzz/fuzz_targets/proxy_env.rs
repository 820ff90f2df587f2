//! The proxy environment variables (`shell::kube::proxy_env`): any `HTTPS_PROXY`/`HTTP_PROXY`
//! and `NO_PROXY` values and any server host give a proxy, a direct connection or an error naming
//! the variable, never a panic. A proxy's `CONNECT` request is one request whose
//! lines come only from the server address and the (base64-encoded) user info; loopback
//! servers are never proxied; `*` and an entry naming the host turn the proxy off, and adding
//! an entry to `NO_PROXY` never turns it back on. Input: one flags byte, two port bytes, then
//! the proxy value, `NO_PROXY` and the host separated by NUL bytes.
#![no_main]

use edgesched::shell::kube::proxy_env::{parse_proxy, proxy_for, use_proxy};
use libfuzzer_sys::fuzz_target;
use std::net::IpAddr;

fuzz_target!(|input: &[u8]| {
    let Some((&[flags, hi, lo], rest)) = input.split_first_chunk::<3>() else { return };
    let Ok(rest) = std::str::from_utf8(rest) else { return };
    let mut parts = rest.split('\0');
    let (value, no_proxy, host) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let https = flags & 1 == 1;
    let port = u16::from_be_bytes([hi, lo]);
    let lower = flags & 2 == 2;
    let cgi = flags & 4 == 4;
    let env = |name: &str| -> Option<String> {
        let wanted = match (name, lower) {
            ("HTTPS_PROXY", false) | ("https_proxy", true) if https => value,
            ("HTTP_PROXY", false) | ("http_proxy", true) if !https => value,
            ("NO_PROXY", false) | ("no_proxy", true) => no_proxy,
            ("REQUEST_METHOD", _) if cgi => "GET",
            _ => return None,
        };
        Some(wanted.to_string())
    };

    let lowered = host.to_ascii_lowercase();
    let loopback = lowered == "localhost" || lowered.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    match proxy_for(&env, https, host, port) {
        Ok(Some(proxy)) => {
            assert!(!loopback && !value.is_empty() && (https || !cgi), "{host:?}");
            assert!(!proxy.host.is_empty());
            assert!(proxy.connect.starts_with("CONNECT ") && proxy.connect.ends_with("\r\n\r\n"));
            if !host.contains(['\r', '\n']) {
                let lines = proxy.connect.matches("\r\n").count();
                assert!(lines == 3 || lines == 4, "{:?}", proxy.connect);
                assert_eq!(proxy.connect.matches('\n').count(), lines);
            }
        }
        Ok(None) => {}
        // The problem is a fixed text (`&'static str`), so it cannot show the value.
        Err(e) => assert!(e.variable.eq_ignore_ascii_case(if https { "HTTPS_PROXY" } else { "HTTP_PROXY" })),
    }

    if let Ok((proxy_host, _, user)) = parse_proxy(value) {
        assert!(!proxy_host.is_empty() && !proxy_host.contains(['@', '/']), "{value:?}");
        assert!(user.is_none() || value.contains('@'));
    }

    let proxied = use_proxy(no_proxy, host, port);
    assert_eq!(use_proxy("", host, port), !loopback);
    assert!(proxied || !use_proxy(&format!("{no_proxy},{value}"), host, port), "adding an entry turned the proxy on");
    assert!(!use_proxy(&format!("{value},*"), host, port));
    let plain = !lowered.is_empty() && lowered.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if plain {
        assert!(!use_proxy(&format!("{no_proxy},{host}"), host, port), "{host:?} in NO_PROXY");
    }
});
