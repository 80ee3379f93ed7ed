"""Stand-in image (Glance v2) and network (Neutron v2.0) services for Nova.

Nova's compute API looks the image up in Glance and asks Neutron about ports,
networks and security groups even for a server booted with ``networks:
none``; Nova's own functional tests fake both. This answers the little a boot
and a shelve need: one public raw image (:data:`IMAGE_ID`) to boot from, the
snapshot images a shelve creates (kept in memory: created, patched, uploaded,
shown, deleted; nothing reads their data), and Neutron's API for one shared
network and the ports Nova makes on it (:mod:`tests.nova.neutron`). Both live
on one loopback port, under ``/image`` and ``/network``, and are registered in
Keystone's catalog as the ``image`` and ``network`` services. Every call is
kept in :attr:`Stubs.calls` (what Nova asked is the first thing to read when a
boot fails).
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from tests.nova.neutron import Neutron

IMAGE_ID = "155d900f-4e14-4e4c-a73d-069cbf4541e6"
_STAMP = "2026-01-01T00:00:00Z"

IMAGE = {
    "id": IMAGE_ID,
    "name": "cirros-fake",
    "status": "active",
    "visibility": "public",
    "protected": False,
    "os_hidden": False,
    "tags": [],
    "container_format": "bare",
    "disk_format": "raw",
    "min_ram": 0,
    "min_disk": 0,
    "size": 25165824,
    "virtual_size": None,
    "checksum": None,
    "owner": None,
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "file": f"/v2/images/{IMAGE_ID}/file",
    "schema": "/v2/schemas/image",
}

#: What glanceclient builds its image model from: every field of :data:`IMAGE`
#: is a core property (Nova files the others under the image's ``properties``),
#: of any type.
_IMAGE_SCHEMA = {
    "name": "image",
    "properties": {name: {} for name in IMAGE},
    "additionalProperties": True,
    "links": [],
}

Reply = tuple[str, dict | list | None]


@dataclass
class Stubs:
    """The stand-ins' state: the base URL and the calls seen."""

    url: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)
    images: dict[str, dict] = field(default_factory=lambda: {IMAGE_ID: IMAGE})
    neutron: Neutron = field(default_factory=Neutron)

    @property
    def image_url(self) -> str:
        return f"{self.url}/image"

    @property
    def network_url(self) -> str:
        return f"{self.url}/network"

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        self.calls.append((method, path + (f"?{query}" if query else "")))
        if path.startswith("/image"):
            status, body = self._image(method, path[len("/image") :].rstrip("/"), _body(environ))
        elif path.startswith("/network"):
            status, body = self._network(
                method, path[len("/network") :].rstrip("/"), query, _body(environ)
            )
        else:
            status, body = "404 Not Found", {"error": "no such service"}
        data = b"" if body is None else json.dumps(body).encode()
        start_response(
            status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
        )
        return [data]

    def _image(self, method: str, path: str, body: object) -> Reply:
        if method == "GET" and path in ("", "/versions"):
            link = {"rel": "self", "href": f"{self.image_url}/v2/"}
            versions = [{"id": "v2.16", "status": "CURRENT", "links": [link]}]
            return "200 OK", {"versions": versions}
        if method == "GET" and path == "/v2/schemas/image":
            return "200 OK", _IMAGE_SCHEMA
        if method == "GET" and path == "/v2/images":
            return "200 OK", {"images": list(self.images.values()), "schema": "/v2/schemas/images"}
        if method == "POST" and path == "/v2/images" and isinstance(body, dict):
            return "201 Created", self._new_image(body)
        parts = path.split("/")  # "", "v2", "images", id[, "file"]
        found = self.images.get(parts[3]) if len(parts) >= 4 and parts[2] == "images" else None
        if found is None:
            return "404 Not Found", {"error": f"no image at {path}"}
        return self._one_image(method, found, parts[4:], body)

    def _new_image(self, fields: dict) -> dict:
        """A snapshot image, ``queued`` until its data is uploaded."""
        image_id = fields.get("id") or str(uuid.uuid4())
        image = {**IMAGE, "size": None, "visibility": "private", **fields}
        image.update(id=image_id, status="queued", file=f"/v2/images/{image_id}/file")
        self.images[image_id] = image
        return image

    def _one_image(self, method: str, image: dict, rest: list[str], body: object) -> Reply:
        if method == "GET" and not rest:
            return "200 OK", image
        if method == "PATCH" and not rest and isinstance(body, list):
            for change in body:  # JSON-Patch on top-level properties only
                name = change["path"].lstrip("/")
                if change["op"] == "remove":
                    image.pop(name, None)
                else:
                    image[name] = change["value"]
            return "200 OK", image
        if method == "PUT" and rest == ["file"]:
            image["status"] = "active"
            return "204 No Content", None
        if method == "DELETE" and not rest and image["id"] != IMAGE_ID:
            del self.images[image["id"]]
            return "204 No Content", None
        return "405 Method Not Allowed", {"error": f"{method} on image {image['id']}"}

    def _network(self, method: str, path: str, query: str, body: object) -> Reply:
        if method == "GET" and path == "":
            link = {"rel": "self", "href": f"{self.network_url}/v2.0/"}
            return "200 OK", {"versions": [{"id": "v2.0", "status": "CURRENT", "links": [link]}]}
        if not path.startswith("/v2.0"):
            return "404 Not Found", {"NeutronError": {"message": path}}
        parts = [part for part in path[len("/v2.0") :].removesuffix(".json").split("/") if part]
        if method == "GET" and parts == []:
            return "200 OK", {"resources": []}
        return self.neutron(method, parts, query, body)


def _body(environ: dict) -> object:
    """The request's JSON body (None when it has none; upload data is not JSON)."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    data = environ["wsgi.input"].read(length) if length else b""
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (wsgiref's name)
        pass


@contextlib.contextmanager
def serving() -> Iterator[Stubs]:
    """Run the stand-ins on a free loopback port until the block ends."""
    stubs = Stubs()
    server = make_server(
        "127.0.0.1", 0, stubs, server_class=_ThreadingServer, handler_class=_QuietHandler
    )
    stubs.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stubs
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
