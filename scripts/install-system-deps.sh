#!/usr/bin/env bash
# Debian packages the real-backend suites use: ISO readers that judge the seed ISO, libvirt with
# QEMU and OVMF, a private sshd, Squid for the local provider, python3-libvirt for the C-client
# baseline in the benchmarks; containerd, runc, the CNI plugins and conntrack for the test
# cluster's node, buildah for its images; python3-requests, python3-scrapy and chromium for the
# crawler guide's examples (docs/guides/crawlers.md), run against `up`'s gateway. Idempotent; each test
# environment also checks for what it needs.
set -euo pipefail
pkgs=(
  genisoimage xorriso libarchive-tools p7zip-full python3-pycdlib
  libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils ovmf python3-libvirt
  openssh-server squid curl iproute2 dnsmasq-base debootstrap
  containerd runc containernetworking-plugins conntrack iptables buildah
  python3-requests python3-scrapy chromium
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  # Daemons must not start from maintainer scripts: there is no init system, and tests start
  # what they need themselves.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  rm -f /usr/sbin/policy-rc.d
fi
