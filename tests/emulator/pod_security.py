"""Pod Security Admission's `baseline` level, ported from Kubernetes' own checks
(kubernetes/kubernetes, staging/src/k8s.io/pod-security-admission/policy/check_*.go, the checks of
level baseline at the latest version, 1.32) and held to that package's test fixtures
(tests/data/pod-security-admission, tests/test_pod_security.py).

The journey tier's Kubernetes API runs it on every pod created in a namespace labelled
`pod-security.kubernetes.io/enforce: baseline`, whoever creates the pod, as the API server's
built-in admission plugin does. Each check returns the reason Kubernetes gives ("privileged
(container "x" must not set securityContext.privileged=true)") or None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

Json = dict

ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"

#: check_capabilities_baseline.go: capabilitiesAllowed1_0.
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
#: check_sysctls.go: sysctlsAllowedV1Dot0 + V1Dot27 + V1Dot29 + V1Dot32.
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)
#: check_seLinuxOptions.go: selinuxAllowedTypes1_0 + 1_31.
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _containers(pod: Json) -> Iterator[Json]:
    spec = pod.get("spec") or {}
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(key) or []


def _context(container: Json) -> Json:
    return container.get("securityContext") or {}


def _pod_context(pod: Json) -> Json:
    return (pod.get("spec") or {}).get("securityContext") or {}


def _names(containers: list[str]) -> str:
    quoted = ", ".join(f'"{n}"' for n in containers)
    return f"container{'s' if len(containers) > 1 else ''} {quoted}"


def host_process(pod: Json) -> str | None:
    pod_level = (_pod_context(pod).get("windowsOptions") or {}).get("hostProcess") is True
    bad = [c["name"] for c in _containers(pod) if (_context(c).get("windowsOptions") or {}).get("hostProcess") is True]
    if pod_level or bad:
        return "hostProcess"
    return None


def host_namespaces(pod: Json) -> str | None:
    spec = pod.get("spec") or {}
    used = [f"{field}=true" for field in ("hostNetwork", "hostPID", "hostIPC") if spec.get(field) is True]
    return f"host namespaces ({', '.join(used)})" if used else None


def privileged(pod: Json) -> str | None:
    bad = [c["name"] for c in _containers(pod) if _context(c).get("privileged") is True]
    return f"privileged ({_names(bad)} must not set securityContext.privileged=true)" if bad else None


def capabilities(pod: Json) -> str | None:
    bad, added = [], set()
    for c in _containers(pod):
        extra = [
            cap for cap in (_context(c).get("capabilities") or {}).get("add") or [] if cap not in BASELINE_CAPABILITIES
        ]
        if extra:
            bad.append(c["name"])
            added.update(extra)
    if not bad:
        return None
    listed = ", ".join(sorted(added))
    return f"non-default capabilities ({_names(bad)} must not include {listed} in securityContext.capabilities.add)"


def host_path_volumes(pod: Json) -> str | None:
    bad = [v.get("name", "") for v in (pod.get("spec") or {}).get("volumes") or [] if v.get("hostPath") is not None]
    return f"hostPath volumes ({', '.join(bad)})" if bad else None


def host_ports(pod: Json) -> str | None:
    bad, ports = [], []
    for c in _containers(pod):
        used = [str(p["hostPort"]) for p in c.get("ports") or [] if p.get("hostPort")]
        if used:
            bad.append(c["name"])
            ports.extend(used)
    return f"hostPort ({_names(bad)} uses hostPort {', '.join(ports)})" if bad else None


def app_armor(pod: Json) -> str | None:
    bad = []
    for level in [_pod_context(pod), *(_context(c) for c in _containers(pod))]:
        if (level.get("appArmorProfile") or {}).get("type") == "Unconfined":
            bad.append("appArmorProfile.type=Unconfined")
    for key, value in ((pod.get("metadata") or {}).get("annotations") or {}).items():
        if key.startswith(APPARMOR_ANNOTATION_PREFIX) and not (
            value == "runtime/default" or value.startswith("localhost/")
        ):
            bad.append(f"{key}={value}")
    return f"forbidden AppArmor profiles ({', '.join(bad)})" if bad else None


def selinux(pod: Json) -> str | None:
    for level in [_pod_context(pod), *(_context(c) for c in _containers(pod))]:
        options = level.get("seLinuxOptions") or {}
        if options.get("type", "") not in SELINUX_TYPES or options.get("user") or options.get("role"):
            return "seLinuxOptions"
    return None


def proc_mount(pod: Json) -> str | None:
    bad = [c["name"] for c in _containers(pod) if _context(c).get("procMount") not in (None, "", "Default")]
    return f"procMount ({_names(bad)} must not set securityContext.procMount to Unmasked)" if bad else None


def seccomp(pod: Json) -> str | None:
    levels = [_pod_context(pod), *(_context(c) for c in _containers(pod))]
    if any((level.get("seccompProfile") or {}).get("type") == "Unconfined" for level in levels):
        return 'seccompProfile (pod or containers must not set securityContext.seccompProfile.type to "Unconfined")'
    return None


def sysctls(pod: Json) -> str | None:
    bad = [s.get("name", "") for s in _pod_context(pod).get("sysctls") or [] if s.get("name") not in SAFE_SYSCTLS]
    return f"forbidden sysctls ({', '.join(bad)})" if bad else None


#: Kubernetes' baseline checks, in the order the policy package registers them.
BASELINE_CHECKS: tuple[Callable[[Json], str | None], ...] = (
    app_armor,
    capabilities,
    host_namespaces,
    host_path_volumes,
    host_ports,
    privileged,
    proc_mount,
    seccomp,
    selinux,
    sysctls,
    host_process,
)


def baseline_violations(pod: Json) -> list[str]:
    return [reason for check in BASELINE_CHECKS if (reason := check(pod)) is not None]


def review(namespace: str, namespace_labels: dict[str, str], pod: Json) -> str | None:
    """The API server's refusal of a pod in a namespace whose enforce label is baseline (or
    restricted, of which baseline is part: this port has baseline's checks only), as the admission
    plugin words it; None when admitted."""
    if namespace_labels.get(ENFORCE_LABEL) not in ("baseline", "restricted"):
        return None
    violations = baseline_violations(pod)
    if not violations:
        return None
    name = (pod.get("metadata") or {}).get("name", "")
    level = namespace_labels[ENFORCE_LABEL]
    return f'pods "{name}" is forbidden: violates PodSecurity "{level}:latest": {", ".join(violations)}'
