//! The HTTP proxy for the API server, from the environment, as kube-scheduler finds it: client-go
//! uses Go's `http.ProxyFromEnvironment`, i.e. golang.org/x/net/http/httpproxy (`proxy.go`:
//! `FromEnvironment`, `proxyForURL`, `useProxy`, `parseProxy`). Rules re-expressed here:
//! - `HTTPS_PROXY` (else `https_proxy`) for an https server, `HTTP_PROXY` (else `http_proxy`) for
//!   http, the latter ignored when `REQUEST_METHOD` is set (CGI, "httpoxy"). `ALL_PROXY` is not
//!   read (Go does not).
//! - Proxy value `http://[user:pass@]host[:port]` (port 80 by default) or bare `host:port`
//!   (taken as `http://`). Other schemes (socks5, https) are refused here rather than ignored.
//! - Never for `localhost` or a loopback address. `NO_PROXY` (else `no_proxy`): comma-separated
//!   `*`, IP addresses, CIDR ranges, host names (the host and its subdomains; `.x` and `*.x`
//!   only subdomains), each with an optional `:port` (CIDR ranges ignore ports).
//!
//! The environment is read once, when the client is built; the function takes it as a closure
//! so tests need not change the process's.

use super::base64;
use std::fmt;
use std::net::IpAddr;

/// An HTTP proxy to tunnel API connections through with `CONNECT`.
#[derive(Debug)]
pub struct Proxy {
    /// Host name or address literal (no brackets).
    pub host: String,
    /// Port (80 when the value gives none).
    pub port: u16,
    /// The `CONNECT` request for the API server (with `Proxy-Authorization` when the proxy URL
    /// carries user info), sent as is on each new connection.
    pub connect: String,
}

impl Proxy {
    /// The proxy at `host:port` tunnelling to `target_host:target_port`; `user` is the URL's
    /// `user:password`, sent as Basic credentials.
    pub fn new(host: &str, port: u16, user: Option<&[u8]>, target_host: &str, target_port: u16) -> Proxy {
        let (open, close) = if target_host.contains(':') { ("[", "]") } else { ("", "") };
        let target = format!("{open}{target_host}{close}:{target_port}");
        let mut connect = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if let Some(user) = user {
            connect.push_str("Proxy-Authorization: Basic ");
            connect.push_str(&base64::encode(user));
            connect.push_str("\r\n");
        }
        connect.push_str("\r\n");
        Proxy { host: host.to_string(), port, connect }
    }
}

/// A proxy variable this client cannot use.
#[derive(Debug)]
pub struct ProxyError {
    /// The variable read, e.g. `HTTPS_PROXY`.
    pub variable: &'static str,
    /// What is wrong with it (never its value: it may carry a password).
    pub problem: &'static str,
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.variable, self.problem)
    }
}

impl std::error::Error for ProxyError {}

/// The first of `names` set to something non-empty, with its name (Go's `getEnvAny`).
fn var(env: &dyn Fn(&str) -> Option<String>, names: [&'static str; 2]) -> Option<(&'static str, String)> {
    names.into_iter().find_map(|n| env(n).filter(|v| !v.is_empty()).map(|v| (n, v)))
}

/// The proxy for a server at `host:port` (no brackets), or `None` to connect directly. `env`
/// looks a variable up (`std::env::var(..).ok()` in the daemon).
#[inline(never)]
pub fn proxy_for(env: &dyn Fn(&str) -> Option<String>, https: bool, host: &str, port: u16) -> Result<Option<Proxy>, ProxyError> {
    let found = match https {
        true => var(env, ["HTTPS_PROXY", "https_proxy"]),
        false if env("REQUEST_METHOD").is_some_and(|m| !m.is_empty()) => None,
        false => var(env, ["HTTP_PROXY", "http_proxy"]),
    };
    let Some((variable, value)) = found else { return Ok(None) };
    if !use_proxy(&var(env, ["NO_PROXY", "no_proxy"]).unwrap_or_default().1, host, port) {
        return Ok(None);
    }
    let (proxy_host, proxy_port, user) = parse_proxy(&value).map_err(|problem| ProxyError { variable, problem })?;
    Ok(Some(Proxy::new(proxy_host, proxy_port, user.as_deref(), host, port)))
}

/// Parse a proxy value into host, port and decoded user info (`parseProxy`: a value without a
/// scheme is taken as `http://`).
#[inline(never)]
pub fn parse_proxy(value: &str) -> Result<(&str, u16, Option<Vec<u8>>), &'static str> {
    let value = value.trim();
    let rest = match value.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => return Err("only http:// proxies are supported (CONNECT tunnels)"),
        None => value,
    };
    let authority = rest.split('/').next().unwrap_or_default();
    let (user, host_port) = match authority.rsplit_once('@') {
        Some((user, host_port)) => (Some(percent_decode(user).ok_or("invalid escape in the proxy user info")?), host_port),
        None => (None, authority),
    };
    let (host, port) = split_host_port(host_port).unwrap_or((host_port, "80"));
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match (host.is_empty(), port.parse()) {
        (true, _) => Err("no proxy host"),
        (_, Err(_)) => Err("invalid proxy port"),
        (_, Ok(port)) => Ok((host, port, user)),
    }
}

/// `%XX` escapes of URL user info decoded (Go's `url.User` is unescaped).
fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b == b'%' {
            let [hi, lo, tail @ ..] = rest else { return None };
            let digit = |d: &u8| char::from(*d).to_digit(16);
            out.push((digit(hi)? * 16 + digit(lo)?) as u8);
            rest = tail;
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// `host:port` or `[v6]:port` split like Go's `net.SplitHostPort` (brackets kept off); `None`
/// without a port or for a bare IPv6 address.
fn split_host_port(s: &str) -> Option<(&str, &str)> {
    let (host, port) = s.rsplit_once(':')?;
    match host.strip_prefix('[') {
        Some(v6) => Some((v6.strip_suffix(']')?, port)),
        None if host.contains(':') => None,
        None => Some((host, port)),
    }
}

/// Whether a request to `host:port` goes through the proxy given `no_proxy` (`useProxy`).
#[inline(never)]
pub fn use_proxy(no_proxy: &str, host: &str, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    let ip = host.parse::<IpAddr>().ok();
    if host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()) {
        return false;
    }
    for p in no_proxy.to_ascii_lowercase().split(',') {
        let p = p.trim();
        if p == "*" {
            return false;
        }
        let (entry, entry_port) = split_host_port(p).unwrap_or((p, ""));
        let matched = if let Some((net, bits)) = p.split_once('/') {
            ip.is_some_and(|ip| in_cidr(ip, net, bits))
        } else if entry.is_empty() || !(entry_port.is_empty() || entry_port.parse() == Ok(port)) {
            false
        } else if let Ok(entry_ip) = entry.parse::<IpAddr>() {
            ip == Some(entry_ip)
        } else {
            // A domain: `x` matches x and its subdomains, `.x` and `*.x` only subdomains.
            let suffix = entry.strip_prefix('*').filter(|s| s.starts_with('.')).unwrap_or(entry);
            let dot = suffix.starts_with('.');
            host.strip_suffix(suffix).is_some_and(|h| dot || h.is_empty() || h.ends_with('.'))
        };
        if matched {
            return false;
        }
    }
    true
}

/// Whether `ip` is in the range `net/bits` (same address family only); a malformed range
/// matches nothing.
fn in_cidr(ip: IpAddr, net: &str, bits: &str) -> bool {
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else { return false };
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u32::from(a) as u128, u32::from(b) as u128, 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    bits <= width && (a ^ b).checked_shr(width - bits).unwrap_or(0) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    /// golang.org/x/net/http/httpproxy/proxy_test.go `UseProxyTests` with its `noProxy`
    /// (each host asked for on port 80).
    #[test]
    fn no_proxy_matches_as_go_httpproxy() {
        let no_proxy = "foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, \
                        10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64";
        let cases = [
            // Never proxy localhost.
            ("localhost", false),
            ("127.0.0.1", false),
            ("127.0.0.2", false),
            ("::1", false),
            ("::2", true),
            ("192.168.1.1", false),              // exact IPv4
            ("192.168.1.2", true),               // ports differ
            ("192.168.1.3", false),              // exact IPv4:port
            ("192.168.1.4", true),               // no match
            ("10.0.0.2", false),                 // IPv4 CIDR
            ("2001:db8::52:0:1", false),         // exact IPv6
            ("2001:db8::52:0:2", true),          // ports differ
            ("2001:db8::52:0:3", false),         // exact [IPv6]:port
            ("2002:db8:a::123", false),          // IPv6 CIDR
            ("fe80::424b:c8be:1643:a1b6", true), // no match
            ("barbaz.net", true),                // .barbaz.net: subdomains only
            ("www.barbaz.net", false),           // subdomain of .barbaz.net
            ("foobar.com", false),               // foobar.com itself
            ("www.foobar.com", false),           // and its subdomains
            ("foofoobar.com", true),             // not a part of foobar.com
            ("baz.com", true),                   // not a part of barbaz.com
            ("localhost.net", true),             // not a suffix of an address
            ("local.localhost", true),           // nor a prefix
            ("barbarbaz.net", true),             // wrong domain
            ("wildcard.io", true),               // *.wildcard.io: subdomains only
            ("nested.wildcard.io", false),       // subdomain of *.wildcard.io
            ("awildcard.io", true),              // not a match because of '*'
        ];
        for (host, want) in cases {
            assert_eq!(use_proxy(no_proxy, host, 80), want, "{host}");
        }
        assert!(!use_proxy("*", "example.com", 443));
        assert!(!use_proxy(" Example.COM:443 ,", "api.example.com", 443));
        assert!(use_proxy("example.com:80", "example.com", 443));
    }

    /// Proxy values from proxy_test.go `proxyForURLTests` (the accepted forms) plus refusals.
    #[test]
    fn proxy_values_parse_as_go_httpproxy() {
        let only_http = Err("only http:// proxies are supported (CONNECT tunnels)");
        /// Host, port and user info, or the problem.
        type Parsed<'a> = Result<(&'a str, u16, Option<&'a [u8]>), &'a str>;
        let cases: [(&str, Parsed); 11] = [
            ("cache.corp.example.com:1234", Ok(("cache.corp.example.com", 1234, None))),
            ("cache.corp.example.com", Ok(("cache.corp.example.com", 80, None))),
            ("http://cache.corp.example.com", Ok(("cache.corp.example.com", 80, None))),
            ("HTTP://127.0.0.1:8080/", Ok(("127.0.0.1", 8080, None))),
            ("http://[::1]:3128", Ok(("::1", 3128, None))),
            ("http://user:pass@proxy:3128", Ok(("proxy", 3128, Some(b"user:pass")))),
            ("user:p%40ss@proxy", Ok(("proxy", 80, Some(b"user:p@ss")))),
            ("https://cache.corp.example.com", only_http),
            ("socks5://127.0.0.1", only_http),
            ("http://:80", Err("no proxy host")),
            ("http://proxy:http", Err("invalid proxy port")),
        ];
        for (value, want) in cases {
            let got = parse_proxy(value);
            assert_eq!(got.as_ref().map(|(h, p, u)| (*h, *p, u.as_deref())), want.as_ref().copied(), "{value}");
        }
        assert_eq!(parse_proxy("user:%4@proxy").unwrap_err(), "invalid escape in the proxy user info");
        let proxy = Proxy::new("proxy", 3128, Some(b"user:pass"), "2001:db8::1", 6443);
        assert_eq!(
            proxy.connect,
            "CONNECT [2001:db8::1]:6443 HTTP/1.1\r\nHost: [2001:db8::1]:6443\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n"
        );
    }

    #[test]
    fn the_variable_follows_the_scheme_and_loopback_bypasses() {
        let vars = env(&[("HTTPS_PROXY", "secure:1"), ("http_proxy", "plain:2"), ("no_proxy", "internal")]);
        let host = |p: Result<Option<Proxy>, ProxyError>| p.unwrap().map(|p| p.host);
        let connect = proxy_for(&vars, true, "api.example.com", 6443).unwrap().unwrap().connect;
        assert_eq!(connect, "CONNECT api.example.com:6443 HTTP/1.1\r\nHost: api.example.com:6443\r\n\r\n");
        assert_eq!(host(proxy_for(&vars, true, "api.example.com", 6443)), Some("secure".into()));
        assert_eq!(host(proxy_for(&vars, false, "api.example.com", 80)), Some("plain".into()));
        assert_eq!(host(proxy_for(&vars, true, "internal", 6443)), None);
        assert_eq!(host(proxy_for(&vars, true, "127.0.0.1", 6443)), None);
        assert_eq!(host(proxy_for(&vars, true, "localhost", 6443)), None);
        assert_eq!(host(proxy_for(&env(&[]), true, "api.example.com", 6443)), None);
        // CGI: HTTP_PROXY may come from a request header.
        let cgi = env(&[("HTTP_PROXY", "plain:2"), ("REQUEST_METHOD", "GET")]);
        assert_eq!(host(proxy_for(&cgi, false, "api.example.com", 80)), None);
        let socks = env(&[("https_proxy", "socks5://user:secret@p:1080")]);
        let err = proxy_for(&socks, true, "api.example.com", 6443).unwrap_err();
        assert_eq!(err.variable, "https_proxy");
        assert!(!err.to_string().contains("secret"), "{err}");
    }
}
