from exportlint.cli import entry

entry()
