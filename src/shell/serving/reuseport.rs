//! `--permit-port-sharing`: bind the secure port with `SO_REUSEPORT`, so several processes may
//! listen on the same address and port (apiserver `options.SecureServingOptions` →
//! `net.ListenConfig` with `permitPortSharing`). `SO_REUSEADDR` is set as well, as std does and
//! as `--permit-address-sharing` asks.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::FromRawFd;

/// A listening socket on `addr` with `SO_REUSEADDR` and `SO_REUSEPORT`.
pub fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let family = if addr.is_ipv4() { libc::AF_INET } else { libc::AF_INET6 };
    // SAFETY: plain socket syscalls on a descriptor owned here; it is closed on every error path
    // and otherwise handed to the TcpListener, which owns it from then on.
    unsafe {
        let fd = libc::socket(family, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fail = |fd: libc::c_int| {
            let e = io::Error::last_os_error();
            libc::close(fd);
            Err(e)
        };
        let one: libc::c_int = 1;
        let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        for opt in [libc::SO_REUSEADDR, libc::SO_REUSEPORT] {
            if libc::setsockopt(fd, libc::SOL_SOCKET, opt, (&one as *const libc::c_int).cast(), size) != 0 {
                return fail(fd);
            }
        }
        let rc = match addr {
            SocketAddr::V4(a) => {
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: a.port().to_be(),
                    sin_addr: libc::in_addr { s_addr: u32::from(*a.ip()).to_be() },
                    sin_zero: [0; 8],
                };
                libc::bind(fd, (&sin as *const libc::sockaddr_in).cast(), std::mem::size_of_val(&sin) as libc::socklen_t)
            }
            SocketAddr::V6(a) => {
                let sin6 = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: a.port().to_be(),
                    sin6_flowinfo: a.flowinfo(),
                    sin6_addr: libc::in6_addr { s6_addr: a.ip().octets() },
                    sin6_scope_id: a.scope_id(),
                };
                libc::bind(fd, (&sin6 as *const libc::sockaddr_in6).cast(), std::mem::size_of_val(&sin6) as libc::socklen_t)
            }
        };
        if rc != 0 || libc::listen(fd, 128) != 0 {
            return fail(fd);
        }
        Ok(TcpListener::from_raw_fd(fd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_listeners_share_a_port() {
        let first = listen("127.0.0.1:0".parse().expect("addr")).expect("first");
        let addr = first.local_addr().expect("addr");
        let second = listen(addr).expect("a second listener on the same port");
        assert_eq!(second.local_addr().expect("addr"), addr);
        assert!(TcpListener::bind(addr).is_err(), "a listener without SO_REUSEPORT is refused");
    }
}
