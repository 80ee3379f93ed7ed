"""A TCP proxy in front of a database server that can lose one ``COMMIT``.

What a client sees when the database node it talks to dies at the wrong
moment, made to happen on demand: the proxy passes bytes both ways until it
is armed, then, at the next client packet that holds ``COMMIT``, either

* ``"before"``: closes both sides without passing the ``COMMIT`` on (the
  server rolls back: the transaction did not land), or
* ``"after"``: passes it on, waits for the server's answer, and closes both
  sides without passing the answer back (the transaction landed; the client
  cannot know).

The server and the driver are real; only the connection between them is cut.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from tests.server import free_port


class CutProxy:
    """Listening on a spare loopback port, forwarding to ``target_port``."""

    def __init__(self, target_port: int) -> None:
        self.port = free_port()
        self._target = target_port
        self._armed: str | None = None
        self._lock = threading.Lock()
        self.cuts = 0
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, when: str) -> None:
        """Cut the next ``COMMIT``, ``"before"`` or ``"after"`` the server runs it."""
        assert when in ("before", "after")
        with self._lock:
            self._armed = when

    def close(self) -> None:
        """Refuse new connections (the links already made stay up)."""
        # shutdown() wakes the thread blocked in accept(); close() alone would
        # leave the socket listening until that accept() returned.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()

    def _take(self) -> str | None:
        with self._lock:
            armed, self._armed = self._armed, None
            return armed

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            link = _Link(client, socket.create_connection(("127.0.0.1", self._target)))
            threading.Thread(target=self._upstream, args=(link,), daemon=True).start()
            threading.Thread(target=link.downstream, daemon=True).start()

    def _upstream(self, link: _Link) -> None:
        """Client → server, cutting at an armed ``COMMIT``."""
        with contextlib.suppress(OSError):
            while data := link.client.recv(65536):
                when = self._take() if b"COMMIT" in data.upper() else None
                if when is None:
                    link.server.sendall(data)
                    continue
                if when == "after":
                    link.muted = True
                    link.server.sendall(data)
                    link.answered.wait(10)
                self.cuts += 1
                break
        link.close()


class _Link:
    """One client connection and its server connection."""

    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.client = client
        self.server = server
        #: Set: the server's next answer is swallowed (and ``answered`` set).
        self.muted = False
        self.answered = threading.Event()

    def downstream(self) -> None:
        """Server → client, unless muted."""
        with contextlib.suppress(OSError):
            while data := self.server.recv(65536):
                if self.muted:
                    self.answered.set()
                    break
                self.client.sendall(data)
        self.answered.set()
        self.close()

    def close(self) -> None:
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


@contextlib.contextmanager
def cut_proxy(target_port: int) -> Iterator[CutProxy]:
    proxy = CutProxy(target_port)
    try:
        yield proxy
    finally:
        proxy.close()
