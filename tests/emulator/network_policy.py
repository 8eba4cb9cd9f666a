"""Kubernetes NetworkPolicy semantics for ingress (Kubernetes docs, "Network Policies", and the API's
own field documentation in k8s.io/api/networking/v1/types.go), to decide whether a pod may connect to
another as the VPC CNI's network policy agent enforces the team namespaces' policies:

- a pod is isolated for ingress when a policy of its namespace selects it (`podSelector`) with
  `Ingress` among its policyTypes (absent policyTypes: Ingress, and Egress when it has egress rules);
- an isolated pod admits a connection when any policy selecting it has an ingress rule whose `from`
  matches the source (absent or empty: every source) and whose `ports` match (absent: every port);
- a peer with `podSelector` alone matches pods of the policy's namespace, `namespaceSelector` alone
  every pod of the namespaces it selects, both together the selected pods of the selected namespaces;
  `ipBlock` the source address in `cidr` and in none of `except`.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from tests.emulator.kubernetes_api import _selector_matches

Json = dict


@dataclass(frozen=True)
class Pod:
    namespace: str
    labels: dict[str, str] = field(default_factory=dict)
    ip: str = "10.0.0.1"


def _policy_types(policy: Json) -> list[str]:
    spec = policy.get("spec") or {}
    if spec.get("policyTypes"):
        return list(spec["policyTypes"])
    return ["Ingress", *(["Egress"] if spec.get("egress") else [])]


def _selects(policy: Json, pod: Pod) -> bool:
    return policy["metadata"].get("namespace") == pod.namespace and _selector_matches(
        (policy.get("spec") or {}).get("podSelector") or {}, pod.labels
    )


def _peer_matches(peer: Json, policy_namespace: str, source: Pod, namespace_labels: dict[str, dict[str, str]]) -> bool:
    if "ipBlock" in peer:
        block = peer["ipBlock"]
        address = ipaddress.ip_address(source.ip)
        if address not in ipaddress.ip_network(block["cidr"], strict=False):
            return False
        return not any(address in ipaddress.ip_network(e, strict=False) for e in block.get("except") or [])
    pods, namespaces = peer.get("podSelector"), peer.get("namespaceSelector")
    if namespaces is None:
        in_namespace = source.namespace == policy_namespace
    else:
        labels = {"kubernetes.io/metadata.name": source.namespace, **namespace_labels.get(source.namespace, {})}
        in_namespace = _selector_matches(namespaces, labels)
    return in_namespace and (pods is None or _selector_matches(pods, source.labels))


def _port_matches(ports: list[Json] | None, port: int, protocol: str, port_name: str | None) -> bool:
    """A rule's ports: absent or empty, every port; else an entry of the traffic's protocol (TCP when
    unnamed) whose port is absent (every port of it), the number, within [port, endPort], or the name
    of the destination container's port."""
    if not ports:
        return True
    for entry in ports:
        if entry.get("protocol", "TCP") != protocol:
            continue
        if "port" not in entry:
            return True
        first = entry["port"]
        if isinstance(first, str):
            if first == port_name:
                return True
            continue
        if first <= port <= entry.get("endPort", first):
            return True
    return False


def ingress_allowed(
    policies: list[Json],
    source: Pod,
    target: Pod,
    port: int,
    *,
    protocol: str = "TCP",
    port_name: str | None = None,
    namespace_labels: dict[str, dict[str, str]] | None = None,
) -> bool:
    """Whether `target` admits a connection from `source` to `port` (named `port_name` in its
    container, if it has a name) under `policies`."""
    labels = namespace_labels or {}
    selecting = [
        p
        for p in policies
        if p.get("kind") == "NetworkPolicy" and _selects(p, target) and "Ingress" in _policy_types(p)
    ]
    if not selecting:
        return True
    for policy in selecting:
        for rule in (policy.get("spec") or {}).get("ingress") or []:
            peers = rule.get("from")
            if (not peers or any(_peer_matches(peer, target.namespace, source, labels) for peer in peers)) and (
                _port_matches(rule.get("ports"), port, protocol, port_name)
            ):
                return True
    return False
