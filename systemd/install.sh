#!/usr/bin/env bash
# Install edgesched as a systemd service on a bare-metal control-plane node.
#
#   sudo systemd/install.sh path/to/edgesched [path/to/kubeconfig]
#
# Creates the `edgesched` system user, installs the binary to /usr/local/bin, the unit to
# /etc/systemd/system, the config to /etc/edgesched/config.yaml (kept if present) and, when given,
# the kubeconfig to /etc/edgesched/kubeconfig (root:edgesched 0640). Then enables and starts it.
# Uninstall: systemctl disable --now edgesched && rm /etc/systemd/system/edgesched.service
#            /usr/local/bin/edgesched && rm -r /etc/edgesched && userdel edgesched
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:?usage: install.sh BINARY [KUBECONFIG]}"
kubeconfig="${2:-}"
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 1; }
"$bin" --version >/dev/null

if ! id edgesched >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin edgesched
fi
install -m 0755 "$bin" /usr/local/bin/edgesched
install -d -m 0750 -o root -g edgesched /etc/edgesched
if [ ! -e /etc/edgesched/config.yaml ]; then
  install -m 0640 -o root -g edgesched "$here/config.yaml" /etc/edgesched/config.yaml
fi
if [ -n "$kubeconfig" ]; then
  install -m 0640 -o root -g edgesched "$kubeconfig" /etc/edgesched/kubeconfig
fi
/usr/local/bin/edgesched check-config --config /etc/edgesched/config.yaml >/dev/null
install -m 0644 "$here/edgesched.service" /etc/systemd/system/edgesched.service
systemctl daemon-reload
systemctl enable --now edgesched
systemctl --no-pager status edgesched || true
