"""`python -m mneme_core` is the `mneme` command."""

from .cli import main

main()
