"""The discovery configuration, read from the ConfigMap Volcano's controllers read.

Volcano's HyperNode controller reads ``<release>-controller-configmap`` in its own namespace
(``$HELM_RELEASE_NAME``, default ``volcano``; ``$KUBE_POD_NAMESPACE``, default
``volcano-system``), key ``volcano-controller.conf``::

    networkTopologyDiscovery:
      - source: label
        enabled: true
        config:
          networkTopologyTypes:
            topologyA2:
              - nodeLabel: volcano.sh/tor
              - nodeLabel: kubernetes.io/hostname

Each entry is a source (``label``, ``ufm``, ``roce``); only enabled ones run. No ConfigMap,
no key, or YAML that does not parse: no source runs, and the HyperNodes discovered so far
stay (as in Volcano, which stops its discoverers but deletes nothing).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from apis.safe_yaml import load_one
from core.models import ConfigMap

__all__ = [
    "CONFIG_KEY",
    "DiscoveryConfig",
    "config_map_location",
    "enabled_source",
    "load_discovery_config",
]

logger = logging.getLogger(__name__)

NAMESPACE_ENV = "KUBE_POD_NAMESPACE"
RELEASE_ENV = "HELM_RELEASE_NAME"
DEFAULT_NAMESPACE = "volcano-system"
DEFAULT_RELEASE = "volcano"
CONFIG_KEY = "volcano-controller.conf"


@dataclass(frozen=True)
class DiscoveryConfig:
    """One ``networkTopologyDiscovery`` entry: a source and its own configuration."""

    source: str
    enabled: bool = False
    config: Mapping[str, Any] = field(default_factory=dict)


def config_map_location() -> tuple[str, str]:
    """Return the namespace and name of the ConfigMap the controller reads."""
    namespace = os.environ.get(NAMESPACE_ENV) or DEFAULT_NAMESPACE
    release = os.environ.get(RELEASE_ENV) or DEFAULT_RELEASE
    return namespace, f"{release}-controller-configmap"


def _entries(document: Any) -> list[DiscoveryConfig]:
    if not isinstance(document, Mapping):
        return []
    found = []
    for item in document.get("networkTopologyDiscovery") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("source"), str):
            continue
        config = item.get("config")
        found.append(
            DiscoveryConfig(
                source=item["source"],
                enabled=item.get("enabled") is True,
                config=config if isinstance(config, Mapping) else {},
            )
        )
    return found


def load_discovery_config() -> list[DiscoveryConfig]:
    """Return the configured discovery sources (none without a usable ConfigMap)."""
    namespace, name = config_map_location()
    config_map = ConfigMap.objects.filter(namespace=namespace, name=name).only("data").first()
    if config_map is None:
        return []
    text = (config_map.data or {}).get(CONFIG_KEY)
    if not isinstance(text, str):
        return []
    try:
        return _entries(load_one(text))
    except (yaml.YAMLError, ValueError) as error:  # Volcano logs it and runs no source
        logger.warning("%s/%s: cannot read %s: %s", namespace, name, CONFIG_KEY, error)
        return []


def enabled_source(configs: list[DiscoveryConfig], source: str) -> DiscoveryConfig | None:
    """Return the first enabled entry of ``source`` (Volcano's GetDiscoveryConfig)."""
    return next((c for c in configs if c.source == source and c.enabled), None)
