#!/bin/bash
# Default HyperPod lifecycle script of hyperpod-teams, uploaded when the spec names no
# lifecycle_scripts_s3_uri. It records the provisioning of the node and keeps pods from the
# instance metadata service; clusters that need more node set-up (container storage on
# /opt/sagemaker, extra packages) bring their own scripts with cluster.lifecycle_scripts_s3_uri,
# and copy the IMDS block below into them (docs/security.md, "Credentials out of a tenant's reach").
set -euo pipefail
mkdir -p /var/log/provision
exec >> /var/log/provision/provisioning.log 2>&1
echo "[hyperpod-teams] on_create started on $(hostname) at $(date --iso-8601=seconds)"
if mountpoint -q /opt/sagemaker; then
  echo "[hyperpod-teams] secondary EBS volume mounted at /opt/sagemaker"
fi

# --- pods kept from the instance metadata service (hyperpod-teams: imds-block) ---
# A pod that reaches 169.254.169.254 gets the node role's credentials. The EKS Best Practices Guide
# ("Restrict access to the instance profile assigned to the worker node") drops the pods' traffic to
# it where the hop limit cannot be set, as on HyperPod's nodes: pods of the VPC CNI come in on eni*
# interfaces; host-network pods (the CNI, the health agents) keep their access. Team pods get their
# credentials from EKS Pod Identity (169.254.170.23), which stays reachable. A systemd unit puts the
# rule back at every boot, before kubelet starts any pod.
cat > /etc/systemd/system/hyperpod-teams-imds-block.service <<'UNIT'
[Unit]
Description=hyperpod-teams: keep pods from the instance metadata service
Before=kubelet.service
After=network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'iptables -C FORWARD -i eni+ -d 169.254.169.254/32 -j DROP 2>/dev/null || iptables -I FORWARD 1 -i eni+ -d 169.254.169.254/32 -j DROP'

[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable --now hyperpod-teams-imds-block.service
iptables -C FORWARD -i eni+ -d 169.254.169.254/32 -j DROP
echo "[hyperpod-teams] pods kept from the instance metadata service"

echo "[hyperpod-teams] on_create finished"
