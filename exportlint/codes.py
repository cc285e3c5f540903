"""Every rule code, without importing the rules (they import libcst).

A run whose files need no parse (no ``forward``, no export call, no eager-quantization
conversion: configs, tokenizers, data code, the typical pre-commit batch of a model repo) still
reports suppressions naming unknown codes (EXL002) and honours ``select``/``ignore``; this
list lets it do so without importing libcst (``import libcst`` alone costs more than such a
run; see ``engine._light_findings``). ``tests/test_cli_conventions.py`` checks that it equals
the rule registry (``checks.base.all_rules``).
"""

KNOWN_CODES: tuple[str, ...] = (
    "EXL001", "EXL002", "EXL003",
    "EXL101", "EXL102", "EXL103", "EXL104",
    "EXL111", "EXL112", "EXL113", "EXL114", "EXL115", "EXL116", "EXL117", "EXL118", "EXL119", "EXL120", "EXL121", "EXL122",
    "EXL123", "EXL124", "EXL125", "EXL126", "EXL127", "EXL128", "EXL129", "EXL130", "EXL131", "EXL132", "EXL133",
    "EXL134", "EXL135", "EXL136", "EXL137", "EXL138", "EXL139", "EXL142", "EXL143", "EXL144", "EXL145", "EXL146", "EXL147", "EXL148", "EXL149", "EXL150", "EXL151", "EXL152", "EXL153",
    "EXL201", "EXL202", "EXL203", "EXL204", "EXL205", "EXL206", "EXL207", "EXL208", "EXL209", "EXL210", "EXL211", "EXL212", "EXL213",
    "EXL301", "EXL302", "EXL303", "EXL304",
    "EXL401", "EXL402", "EXL403", "EXL404", "EXL405", "EXL408", "EXL409",
    "EXL501", "EXL502", "EXL503", "EXL504", "EXL505",
    "EXL901", "EXL902",
)
