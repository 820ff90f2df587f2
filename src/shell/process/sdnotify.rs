//! systemd readiness notification (`Type=notify`): send `READY=1` once the caches are synced and
//! `STOPPING=1` on shutdown, over the `$NOTIFY_SOCKET` datagram socket (the sd_notify protocol,
//! a few lines instead of a libsystemd dependency). Without `$NOTIFY_SOCKET` it does nothing.

use std::os::unix::net::UnixDatagram;

/// Send one notification; errors are ignored (readiness is best effort, as sd_notify(3)).
pub fn notify(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else { return };
    let Ok(sock) = UnixDatagram::unbound() else { return };
    let bytes = path.as_encoded_bytes();
    if let Some(abstract_name) = bytes.strip_prefix(b"@") {
        #[cfg(target_os = "linux")]
        {
            use std::os::linux::net::SocketAddrExt;
            if let Ok(addr) = std::os::unix::net::SocketAddr::from_abstract_name(abstract_name) {
                let _ = sock.send_to_addr(state.as_bytes(), &addr);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = abstract_name;
    } else {
        let _ = sock.send_to(state.as_bytes(), std::path::Path::new(&path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_ready_to_the_notify_socket() {
        let dir = crate::core::scratch::ScratchDir::new("sdnotify");
        let path = dir.join("notify.sock");
        let server = UnixDatagram::bind(&path).expect("bind");
        std::env::set_var("NOTIFY_SOCKET", &path);
        notify("READY=1");
        std::env::remove_var("NOTIFY_SOCKET");
        let mut buf = [0u8; 64];
        let n = server.recv(&mut buf).expect("received");
        assert_eq!(&buf[..n], b"READY=1");
    }
}
