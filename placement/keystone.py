"""Keystone token validation through keystonemiddleware (optional extra)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from oslo_config import cfg

from placement import auth
from placement.conf import ConfigError


def wrap(conf: cfg.ConfigOpts, app: auth.WSGIApp) -> auth.WSGIApp:
    """Put keystonemiddleware's auth_token in front of ``app``; ``/`` skips it.

    Its 401 is keystonemiddleware's own JSON whatever the client accepts, as
    upstream's is.
    """
    try:
        from keystonemiddleware import auth_token
    except ImportError:
        raise ConfigError(
            "[api] auth_strategy = keystone needs keystonemiddleware: "
            "install it with 'pip install placement-lite[keystone]'"
        ) from None
    protected = auth_token.AuthProtocol(app, {"oslo_config_config": conf})

    def skip_root(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in ("/", ""):
            return app(environ, start_response)
        return protected(environ, start_response)

    return skip_root
