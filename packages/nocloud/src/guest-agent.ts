// Vendor-data has to be a script: cloud-init merges cloud-config vendor-data with the
// user's cloud-config, and a user-data `packages:` or `runcmd:` list replaces ours.
// Only shell built-ins are used until a package manager or service manager is called, so
// the script runs under dash, bash and busybox sh alike.
const SCRIPT = `#!/bin/sh
# Installs and starts qemu-guest-agent so the host can ask the guest for its addresses.
# Does nothing when the agent already runs; safe to run again.

have() { command -v "$1" >/dev/null 2>&1; }

agent_running() {
  for comm in /proc/[0-9]*/comm; do
    name=''
    read -r name < "$comm" 2>/dev/null || continue
    [ "$name" = qemu-ga ] && return 0
  done
  return 1
}

install_agent() {
  if have apt-get; then
    # First boot may race unattended-upgrades for the dpkg lock: wait for it.
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q qemu-guest-agent
  elif have dnf; then
    dnf install -y qemu-guest-agent
  elif have zypper; then
    zypper --non-interactive install qemu-guest-agent
  elif have apk; then
    apk add --no-cache qemu-guest-agent
  else
    echo 'qemu-guest-agent: none of apt-get, dnf, zypper or apk found' >&2
    return 1
  fi
}

start_agent() {
  if have systemctl; then
    systemctl enable qemu-guest-agent >/dev/null 2>&1
    systemctl start qemu-guest-agent && return 0
  fi
  if have rc-service; then
    rc-update add qemu-guest-agent default >/dev/null 2>&1
    rc-service qemu-guest-agent start && return 0
  fi
  if have service; then
    service qemu-guest-agent start && return 0
  fi
  echo 'qemu-guest-agent: could not start the service' >&2
  return 1
}

agent_running && exit 0
have qemu-ga || install_agent || exit 1
agent_running && exit 0
start_agent
`;

/**
 * The default vendor-data: a POSIX shell script that installs qemu-guest-agent with
 * apt-get, dnf, zypper or apk (the first one present), then starts it through systemd,
 * OpenRC or a SysV `service`. It exits at once when a `qemu-ga` process is already running.
 */
export function guestAgentScript(): string {
  return SCRIPT;
}
