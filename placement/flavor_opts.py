"""``[flavors]``: named amounts of resources, for ``resize`` actions.

Each line of the group names a flavor and the amounts an instance of it holds::

    [flavors]
    m1.small = VCPU:1,MEMORY_MB:2048,DISK_GB:20

A resize action may also give the amounts inline instead of a name. The names
are the operator's, so they cannot be registered options (and oslo's sample
generator lists no group without options); they are read from the same
configuration files oslo.config parsed, and checked when the configuration is
loaded.
"""

from __future__ import annotations

import glob
import os

from oslo_config import cfg

from placement import errors, filters

GROUP = "flavors"


class InvalidFlavor(ValueError):
    """A ``[flavors]`` entry or an inline flavor that is not ``CLASS:AMOUNT,...``."""


def _config_files(conf: cfg.ConfigOpts) -> list[str]:
    """The files oslo.config read, in its order: ``--config-file``s, then each config dir."""
    files = list(conf.config_file or [])
    dirs = conf.config_dir or []
    for directory in [dirs] if isinstance(dirs, str) else dirs:
        files.extend(sorted(glob.glob(os.path.join(directory, "*.conf"))))
    return files


def configured_flavors(conf: cfg.ConfigOpts) -> dict[str, str]:
    """Flavor name → its resources text, as configured (a later file wins)."""
    sections: dict[str, dict[str, list[str]]] = {}
    for path in _config_files(conf):
        if os.path.exists(path):
            cfg.ConfigParser(path, sections).parse()
    return {name: values[-1] for name, values in sections.get(GROUP, {}).items()}


def flavor_resources(conf: cfg.ConfigOpts, flavor: str) -> dict[str, int]:
    """The amounts of ``flavor``: a configured name, else an inline ``CLASS:AMOUNT,...``."""
    text = configured_flavors(conf).get(flavor, flavor)
    try:
        return filters.parse_resources(text)
    except errors.BadRequest:
        raise InvalidFlavor(f"unknown flavor or invalid resources {flavor!r}") from None


def validate(conf: cfg.ConfigOpts) -> None:
    """Refuse a configured flavor whose resources do not parse, naming it."""
    for name, text in configured_flavors(conf).items():
        try:
            filters.parse_resources(text)
        except errors.BadRequest:
            raise InvalidFlavor(f"Invalid value for [flavors] {name}: {text!r}") from None
