"""Op-support tables: which public torch APIs each exporter can translate.

``exportlint.ops.table`` reads the generated data file (``rules/op_support.json``) without
importing torch; ``exportlint.ops.generate`` (needs the ``export`` extra) builds it from the
installed torch / onnxscript by reading the exporters' registries and trial-exporting every
probed API with every exporter.
"""
