"""Job plugins (``spec.plugins``): env, svc and ssh, as Volcano's job controller applies them.

- **env** adds ``VK_TASK_INDEX`` and ``VC_TASK_INDEX`` (the pod's index) to every
  container and init container.
- **svc** gives each pod ``hostname`` = its name and ``subdomain`` = the job's
  name, mounts the ``<job>-svc`` ConfigMap at ``/etc/volcano``, sets
  ``VC_<TASK>_HOSTS`` / ``VC_<TASK>_NUM`` for every task, and shows the host files
  of that ConfigMap (``worker.host``: one ``<pod>.<job>`` per line) as pod
  annotations ``svc.volcano.sh/<task>.host`` too. Volcano injects the env through
  ConfigMap key references; a simulated pod resolves none, so the values are
  written in directly. The ConfigMap itself, the job's headless Service and its
  NetworkPolicy are real objects, written by ``svc.sync_svc_objects`` and served at
  Kubernetes' paths (``data`` from ``generate_hosts``).
- **ssh** mounts the ``<job>-ssh`` Secret's ``.ssh`` files at ``/root/.ssh`` (or
  ``--ssh-key-file-path``). The Secret itself (``id_rsa``, ``id_rsa.pub``,
  ``authorized_keys``, ``config``) is written by ``secrets.ensure_ssh_secret``;
  a pod carries only the volume that names it, never key material.

The distributed-framework plugins pytorch, tensorflow and mpi render their env in
``framework_plugins``; ray and hcclrank only imply svc here (admission adds it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.models import Pod
from jobs.controller.framework_plugins import apply_framework_plugins
from jobs.models import Job, TaskSpec

__all__ = [
    "SSH_FILES",
    "SVC_PREFIX",
    "apply_plugins",
    "flag_set",
    "generate_hosts",
    "generate_key_pair",
    "ssh_secret_name",
    "svc_config_map_name",
]

SVC_PREFIX = "svc.volcano.sh/"
SSH_FILES = ("id_rsa", "id_rsa.pub", "authorized_keys", "config")


def _containers(spec: dict[str, Any]) -> Iterable[dict[str, Any]]:
    yield from spec.get("containers") or []
    yield from spec.get("initContainers") or []


def _set_env(container: dict[str, Any], name: str, value: str) -> None:
    env = [item for item in container.get("env") or [] if item.get("name") != name]
    container["env"] = [*env, {"name": name, "value": value}]


def _flags(arguments: list[str]) -> dict[str, str]:
    flags = {}
    for argument in arguments:
        key, _, value = argument.lstrip("-").partition("=")
        flags[key] = value or "true"
    return flags


def _host_lines(job: Job, task: TaskSpec) -> list[str]:
    """Return the task's host names: ``<hostname>.<subdomain>`` of each replica.

    As Volcano's ``GenerateHosts``: the pod's name and the job's name unless the template
    fixes them; a fixed hostname is one host, whatever the replicas (none at zero).
    """
    spec = task.template.get("spec") or {}
    subdomain = spec.get("subdomain") or job.name
    if task.replicas <= 0:
        return []
    if fixed := spec.get("hostname"):
        return [f"{fixed}.{subdomain}"]
    return [f"{job.name}-{task.name}-{index}.{subdomain}" for index in range(task.replicas)]


def flag_set(arguments: list[str], name: str) -> bool:
    """Return whether the boolean flag ``--name`` is on in a plugin's arguments (Go's
    ``flag.Bool``: ``--name``, ``--name=true``, ``=1``, ``=t``)."""
    return _flags(arguments).get(name, "false").lower() in ("true", "1", "t")


def svc_config_map_name(job: Job) -> str:
    """Return the name of the svc plugin's ConfigMap (Volcano's ``<job>-svc``)."""
    return f"{job.name}-svc"


def generate_hosts(job: Job, tasks: list[TaskSpec]) -> dict[str, str]:
    """Return the ``<job>-svc`` ConfigMap's data (Volcano's ``GenerateHosts``).

    Per task (``-`` in its name written ``_``): ``<task>.host``, one host per line, which
    pods read at ``/etc/volcano/<task>.host``; ``VC_<TASK>_HOSTS``, the hosts joined by
    commas; ``VC_<TASK>_NUM``, how many.
    """
    data: dict[str, str] = {}
    for task in tasks:
        hosts = _host_lines(job, task)
        key = task.name.replace("-", "_")
        data[f"{key}.host"] = "\n".join(hosts)
        data[f"VC_{key.upper()}_HOSTS"] = ",".join(hosts)
        data[f"VC_{key.upper()}_NUM"] = str(len(hosts))
    return data


def ssh_secret_name(job: Job) -> str:
    """Return the name of the job's ssh Secret (Volcano's ``<job>-ssh``)."""
    return f"{job.name}-ssh"


def apply_plugins(job: Job, tasks: list[TaskSpec], pod: Pod) -> None:
    """Apply the job's plugins to a rendered pod (Volcano's ``OnPodCreate``)."""
    spec = pod.spec
    if "env" in job.plugins:
        for container in _containers(spec):
            _set_env(container, "VK_TASK_INDEX", str(pod.task_index))
            _set_env(container, "VC_TASK_INDEX", str(pod.task_index))
    if "svc" in job.plugins:
        _apply_svc(job, tasks, pod, _flags(job.plugins["svc"]))
    if "ssh" in job.plugins:
        _apply_ssh(job, pod, _flags(job.plugins["ssh"]))
    apply_framework_plugins(job, tasks, pod)


def _mount(spec: dict[str, Any], volume: dict[str, Any], mount: dict[str, Any]) -> None:
    spec["volumes"] = [v for v in spec.get("volumes") or [] if v.get("name") != volume["name"]]
    spec["volumes"].append(volume)
    for container in _containers(spec):
        mounts = [m for m in container.get("volumeMounts") or [] if m.get("name") != mount["name"]]
        container["volumeMounts"] = [*mounts, dict(mount)]


def _apply_svc(job: Job, tasks: list[TaskSpec], pod: Pod, flags: dict[str, str]) -> None:
    spec = pod.spec
    spec.setdefault("hostname", pod.name)
    spec.setdefault("subdomain", job.name)
    name = f"{job.name}-svc"
    _mount(
        spec,
        {"name": name, "configMap": {"name": name}},
        {"name": name, "mountPath": "/etc/volcano"},
    )
    inject = flags.get("inject-hosts-env", "true").lower() != "false"
    for task in tasks:
        hosts = _host_lines(job, task)
        pod.annotations[f"{SVC_PREFIX}{task.name}.host"] = "\n".join(hosts)
        if inject:
            key = task.name.upper().replace("-", "_")
            for container in _containers(spec):
                _set_env(container, f"VC_{key}_HOSTS", ",".join(hosts))
                _set_env(container, f"VC_{key}_NUM", str(len(hosts)))


def _apply_ssh(job: Job, pod: Pod, flags: dict[str, str]) -> None:
    path = flags.get("ssh-key-file-path", "/root/.ssh")
    name = ssh_secret_name(job)
    mode = 0o600 if path == "/root/.ssh" else 0o644
    items = [{"key": key, "path": f".ssh/{key}", "mode": mode} for key in SSH_FILES]
    _mount(
        pod.spec,
        {"name": name, "secret": {"secretName": name, "items": items, "defaultMode": mode}},
        {"name": name, "mountPath": path, "subPath": ".ssh"},
    )


def ssh_config(job: Job, tasks: list[TaskSpec], port: int) -> str:
    """Return the ssh ``config`` file: no host key checks, one ``Host`` entry per pod."""
    lines = ["StrictHostKeyChecking no", "UserKnownHostsFile /dev/null"]
    for task in tasks:
        for index in range(task.replicas):
            pod = f"{job.name}-{task.name}-{index}"
            lines += [f"Host {pod}", f"  HostName {pod}.{job.name}", f"  Port {port}"]
    return "\n".join(lines) + "\n"


def generate_key_pair(job: Job, tasks: list[TaskSpec]) -> dict[str, str]:
    """Return the ssh Secret's files for ``job``: a new 2048-bit RSA pair, or the given keys.

    As Volcano: a given ``--ssh-private-key`` is used as is, with ``--ssh-public-key``
    (here derived from the private key when that flag is missing).
    """
    flags = _flags(job.plugins.get("ssh", []))
    try:
        port = int(flags.get("ssh-port", "22"))
    except ValueError:
        port = 22
    if not 0 < port < 65536:
        port = 22
    private, public = flags.get("ssh-private-key", ""), flags.get("ssh-public-key", "")
    if not private:
        private, public = _new_rsa_pair()
    elif not public:
        public = _public_of(private)
    return {
        "id_rsa": private,
        "id_rsa.pub": public,
        "authorized_keys": public,
        "config": ssh_config(job, tasks, port),
    }


def _new_rsa_pair() -> tuple[str, str]:
    # cryptography comes with the stack (channels' TLS support); imported only when needed.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return private, public.decode() + "\n"


def _public_of(private: str) -> str:
    """Return the OpenSSH public key of a PEM private key (``""`` if it cannot be read)."""
    from cryptography.hazmat.primitives import serialization

    try:
        key = serialization.load_pem_private_key(private.encode(), password=None)
        public = key.public_key().public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
        )
    except (ValueError, TypeError):  # not PEM, encrypted, or a key type without OpenSSH form
        return ""
    return public.decode() + "\n"
