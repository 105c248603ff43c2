"""Entry point for ``python -m vineparse <command>``; see vineparse.cli."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
