"""python -m sdekit ARGS: the `sdekit` command of this package's library."""
import os
import sys

from . import cli_path


def main():
    cli = cli_path()
    if cli is None:
        sys.exit("sdekit: no sdekit command beside the library %s" % __import__("sdekit").library_path)
    os.execv(cli, [cli] + sys.argv[1:])


if __name__ == "__main__":
    main()
