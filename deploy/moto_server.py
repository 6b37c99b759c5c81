"""moto's S3 server for the local stack, started by deploy/stack.sh with the venv's
Python: moto's own WSGI application (the one the `moto_server` command serves), with
three costs taken away that only this stand-in has (docs/benchmarks.md, issue 17's
"moto's own costs" and "a stand-in that keeps connections" sections):

- werkzeug's development server, which `moto_server` runs, closes the connection after
  every response, so each S3 request of a client costs a TCP connection and a thread.
  A real S3 endpoint keeps connections alive. waitress, a WSGI server that keeps them
  (it reads a request whole before the application sees it), serves the same
  application here, on a fixed pool of threads.
- moto's dispatcher lists its package's folders (a listdir and an isdir per folder)
  on every request, to tell a service name from a host name. They do not change while
  it runs, so the list is read once.
- Each request is not logged. Warnings and errors still are.

Unlike `moto_server`, headers whose names hold an underscore are dropped (waitress
does so against spoofing), so S3 metadata keys with one are lost; edihub sets none.
"""

import argparse
import ctypes
import logging
import os
import signal
import sys

import moto.backends
import waitress
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

# Named like moto's own command, which the stack and the benches look for.
PR_SET_NAME = 15
ctypes.CDLL(None).prctl(PR_SET_NAME, b"moto_server", 0, 0, 0)

_MODULES = tuple(moto.backends.list_of_moto_modules())
moto.backends.list_of_moto_modules = lambda: _MODULES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=5000)
    # One Python process runs one thread at a time: more threads only wait.
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    # As moto's own `main` does: moto's settings read it for the server's own address.
    os.environ.setdefault("MOTO_PORT", str(args.port))
    logging.basicConfig(level=logging.WARNING)
    # Requests waiting for a thread are this stand-in's normal load, not news.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    waitress.serve(
        DomainDispatcherApplication(create_backend_app),
        host=args.host,
        port=args.port,
        threads=args.threads,
        ident="moto",
        # Every test process keeps a pool of idle connections; waitress's default of
        # 100 would leave new ones waiting for an idle one to time out.
        connection_limit=2000,
        channel_timeout=30,
        asyncore_use_poll=True,
    )


if __name__ == "__main__":
    main()
