"""Fixes users can apply: rewrites of data-dependent control flow (``rewrites``), applying
fixes to files and editor buffers (``apply``), and verifying rewrites by a real export
(``verify``, needs torch; used by ``--confirm``)."""
