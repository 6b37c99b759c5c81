"""moto's S3 server for the local stack, started by deploy/stack.sh with the venv's
Python. It is moto's own server (`moto.server.main`, the `moto_server` command), less
two costs per request that only this stand-in has (docs/benchmarks.md, issue 17's
"moto's own costs" section):

- moto's dispatcher lists its package's folders (a listdir and an isdir per folder)
  on every request, to tell a service name from a host name. They do not change while
  it runs, so the list is read once.
- werkzeug logs every request at INFO into moto.log. Warnings and errors still are.
"""

import ctypes
import logging
import sys

import moto.backends
from moto.server import main

# Named like moto's own command, which the stack and the benches look for.
PR_SET_NAME = 15
ctypes.CDLL(None).prctl(PR_SET_NAME, b"moto_server", 0, 0, 0)

_MODULES = tuple(moto.backends.list_of_moto_modules())
moto.backends.list_of_moto_modules = lambda: _MODULES

logging.getLogger("werkzeug").setLevel(logging.WARNING)

if __name__ == "__main__":
    sys.exit(main())
