"""The `hta-ingest` console script: runs the packaged hta-ingest binary with the same arguments."""

import os
import sys

from . import ingest_path


def main():
    exe = ingest_path()
    if not os.path.exists(exe):
        sys.stderr.write("hta-ingest: %s is missing from the hta-sqlite package\n" % exe)
        return 2
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
