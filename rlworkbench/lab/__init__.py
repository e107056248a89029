"""rlworkbench's Jupyter Server extension: what JupyterLab's runs panel and graph viewer ask for (the frontend is
``extensions/rlworkbench-lab``).

Routes under ``<base_url>/rlworkbench/`` (all authenticated with the server's own auth, see :mod:`.handlers`):
``GET runs``, ``POST runs/<id>/stop`` (a run's or an experiment's id), ``POST runs/<id>/tensorboard``,
``GET graph?path=…|run=…``, ``GET compare?runs=<id>,<id>…``,
``GET dataflow?run=<id>`` and ``GET dataflows`` (the runs that have one). Enabled by
``jupyter_server_config.d/rlworkbench.json`` (the bootstrap installs it); ``jupyter server extension list`` shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "rlworkbench.lab"}]


def _load_jupyter_server_extension(server_app: ServerApp) -> None:
    from rlworkbench.lab.handlers import add_handlers

    add_handlers(server_app.web_app)
    server_app.log.info("rlworkbench: runs panel and graph viewer routes under /rlworkbench/")
