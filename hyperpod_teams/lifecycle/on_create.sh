#!/bin/bash
# Default HyperPod lifecycle script of hyperpod-teams, uploaded when the spec names no
# lifecycle_scripts_s3_uri. It only records the provisioning of the node; clusters that need
# node set-up (container storage on /opt/sagemaker, extra packages) bring their own scripts
# with cluster.lifecycle_scripts_s3_uri.
set -euo pipefail
mkdir -p /var/log/provision
exec >> /var/log/provision/provisioning.log 2>&1
echo "[hyperpod-teams] on_create started on $(hostname) at $(date --iso-8601=seconds)"
if mountpoint -q /opt/sagemaker; then
  echo "[hyperpod-teams] secondary EBS volume mounted at /opt/sagemaker"
fi
echo "[hyperpod-teams] on_create finished"
