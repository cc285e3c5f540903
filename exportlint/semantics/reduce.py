"""Parse with libcst only what an export entry can reach.

Model files carry much code no export entry runs: model factories and registrations,
checkpoint converters, weight init, pretrained-config tables. ``reduce_source`` decides from
the file's outline (read once with the stdlib ``ast``, cached with the file's index) which
functions a file's entries can reach by name (``forward`` of every class, ``__init__`` of
those classes, the functions other files call into, and by closure every function or method
whose name appears in kept code), and returns the text with the bodies of all other
functions replaced by ``...`` and unreferenced module-level assignments removed. Lines are
kept (blanked), so every kept node has the same line and column as in the original:
findings, fixes and suppressions need no mapping.

The ``self.x = <plain value>`` statements of a kept ``__init__`` (a literal, a call of a
dotted name without arguments: what the shortening leaves of most of them) are not parsed
either (``BLANK_PLAIN_INIT``): the outline records them from the ``ast``, the text keeps one
name per statement (``INIT_MARK``) or, when that is all the body holds, nothing of it, and
the model builds the same attribute facts from the record.

The closure over-approximates what the semantic model follows (any identifier in the kept
source text counts, strings and comments included), so the export path sees exactly the
functions it would see in the full file.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Optional

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: methods always kept on a class that defines a forward
_ALWAYS = frozenset({"__init__", "forward", "__call__", "__post_init__"})
#: below this fraction of removable lines the reduction is not worth its cost. 0: a file is
#: reduced whenever anything goes (a removed body or docstring, an ``__init__`` statement
#: dropped or written shorter): reducing costs a few ms a file, and on a file where most code
#: is reached the shorter ``__init__`` values and the docstrings alone took ~17% off the parse
#: (transformers' modeling_bert.py, 1.4k lines: 54 k -> 42 k characters; bench/speed.py
#: --one-file), where 0.15 parsed it whole
_MIN_SAVED_FRACTION = 0.0
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the names a piece of code may read: a name written right before ``=`` (not ``==``) is
#: bound there, never read: a keyword argument (``dict(resnet50=cfg)``), a parameter default,
#: an assignment target. (timm's ``model_cfgs = dict(<model name>=...)`` tables named every
#: model factory of their file, so the closure kept them all)
#: (``\b[A-Za-z_][A-Za-z0-9_]*\b(?![ \t]*=(?!=))``, written to start with a character class,
#: which ``re`` scans for, and the leading ``\b`` as a lookbehind after it: the same matches,
#: a third faster)
_READ_IDENT = re.compile(r"[A-Za-z_](?<!\w[A-Za-z_])[A-Za-z0-9_]*\b(?![ \t]*=(?!=))")
#: a nested ``def w(self, *args, **kwargs)``: the wrapper a method decorator returns (legacy_params.py,
#: EXL130 reports the wrapper's call of the decorated forward; such a file is parsed and the decorator kept)
_FORWARD_WRAPPER = re.compile(r"^[ \t]+def \w+\(self, \*\w+, \*\*\w+\)", re.M)


def defines_forward_wrapper(text: str) -> bool:
    """The text defines a nested ``def ...(self, *args, **kwargs)`` and uses ``functools.wraps``."""
    return "wraps(" in text and "**" in text and _FORWARD_WRAPPER.search(text) is not None


_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


#: string literals (any prefix, triple-quoted first) and comments: their words are no names
_QUOTED = r"""(?:\"\"\"[\s\S]*?\"\"\"|'\'\'[\s\S]*?'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
#: (what ``_STRINGS_PLAIN`` matches, written to start with one character class: the regex
#: engine then skips to the next candidate character instead of trying the pattern at every
#: position, twice as fast; the lookbehinds pick the branch the first character allows)
_STRINGS_PLAIN = re.compile(r"[rRbBuUfF]{0,2}" + _QUOTED + r"|\#[^\n]*")
_STRINGS = re.compile(
    r"""[rRbBuUfF"'#](?:(?<=")(?:""[\s\S]*?\"\"\"|(?:\\.|[^"\\\n])*")|(?<=')(?:''[\s\S]*?'\'\'|(?:\\.|[^'\\\n])*')"""
    r"|(?<=\#)[^\n]*|(?<=[rRbBuUfF])[rRbBuUfF]?" + _QUOTED + ")"
)


#: what ``_STRINGS`` matches from its quote or ``#`` on: the scan stops only at those (rare)
#: characters, where ``_STRINGS`` also stops at every r, b, u, f of the text and fails; and a
#: triple-quoted string's body is ``[^"]*(?:"(?!"")[^"]*)*`` (runs of other characters, a
#: quote not starting a closing triple), the same match as ``[\s\S]*?`` before the first
#: closing triple, without trying the closing triple at every character of a docstring
_STRINGS_AT_QUOTE = re.compile(
    r"""["'#](?:(?<=")(?:""[^"]*(?:"(?!"")[^"]*)*\"\"\"|(?:\\.|[^"\\\n])*")"""
    r"""|(?<=')(?:''[^']*(?:'(?!'')[^']*)*'\'\'|(?:\\.|[^'\\\n])*')"""
    r"|(?<=\#)[^\n]*)"
)
_PREFIX = frozenset("rRbBuUfF")


def code_lines(text: str) -> list[str]:
    """The lines with string literals and comments removed (line breaks kept)."""
    # a line break inside a string becomes a backslash continuation: what follows the string
    # on its last line continues the logical line (``skeleton``)
    # (``_STRINGS.sub(lambda m: "\\\n" * m.group().count("\n"), text)``: a string's match
    # there starts at its prefix, the one or two prefix letters right before the quote, which
    # are added here; tests/test_speed21_equivalence.py compares the two)
    out: list[str] = []
    pos = 0
    prefix = _PREFIX
    for m in _STRINGS_AT_QUOTE.finditer(text):
        start, end = m.span()
        if text[start] != "#":
            if start - 2 >= pos and text[start - 1] in prefix and text[start - 2] in prefix:
                start -= 2
            elif start - 1 >= pos and text[start - 1] in prefix:
                start -= 1
        out.append(text[pos:start])
        n = text.count("\n", start, end)
        if n:
            out.append("\\\n" * n)
        pos = end
    if not out:
        return _split_lines(text)
    out.append(text[pos:])
    return _split_lines("".join(out))


def _code_lines_regex(text: str) -> list[str]:
    """``code_lines`` as first written (one ``_STRINGS.sub``): for the equivalence test."""
    return _split_lines(_STRINGS.sub(lambda m: "\\\n" * m.group().count("\n"), text))


_OPEN = re.compile(r"[(\[{]")
_CLOSE = re.compile(r"[)\]}]")
_DEF = re.compile(r"(?:async\s+)?def\s")


_DOC_START = re.compile(r"[rRbBuU]{0,2}(?:\"\"\"|\'\'\')")
def skeleton(text: str, code: Optional[list[str]] = None) -> tuple[str, dict[int, int]]:
    """``skeleton_and_docs`` without the docstrings."""
    src, ends, _ = skeleton_and_docs(text, code)
    return src, ends


def skeleton_and_docs(text: str, code: Optional[list[str]] = None) -> tuple[str, dict[int, int], list[tuple[int, int]]]:
    """The text with the body of every function except ``__init__`` blanked (``...``), found
    by indentation over the logical lines (strings and comments removed first), and the last
    line of every function by its ``def`` line. ``ast.parse`` of the skeleton costs a
    fraction of the whole file and gives the same lines for what it keeps. Also the spans of
    multi-line docstrings of functions and classes."""
    lines = split_lines(text)
    code = code if code is not None else code_lines(text)
    if len(code) != len(lines):
        return text, {}, []
    logical: list[tuple[int, int, int, str]] = []  # (first, last, indent, first line stripped)
    depth = 0
    cur: Optional[list] = None
    for i, line in enumerate(code, 1):
        st = line.strip()
        if cur is None:
            if not st:
                continue
            cur = [i, i, len(line) - len(line.lstrip(" \t")), st]
        # (what len(_OPEN.findall(line)) - len(_CLOSE.findall(line)) counts, without the lists)
        depth += (line.count("(") + line.count("[") + line.count("{")
                  - line.count(")") - line.count("]") - line.count("}"))
        cur[1] = i
        if depth <= 0 and not st.endswith("\\"):
            depth = 0
            logical.append((cur[0], cur[1], cur[2], cur[3]))
            cur = None
    if cur is not None:
        logical.append((cur[0], cur[1], cur[2], cur[3]))
    ends: dict[int, int] = {}
    blank: list[tuple[int, int]] = []
    n = len(logical)
    docs: list[tuple[int, int]] = []
    for k, (a, b, ind, st) in enumerate(logical):
        is_def = _DEF.match(st) is not None
        if not is_def and not st.startswith("class "):
            continue
        # the block: following logical lines indented deeper
        j = k + 1
        while j < n and logical[j][2] > ind:
            j += 1
        end = logical[j - 1][1] if j > k + 1 else b
        if j > k + 1:
            # a multi-line docstring first in the block (nothing but the string on its lines)
            a2, b2 = logical[k + 1][0], logical[k + 1][1]
            if b2 > a2 and _DOC_START.match(lines[a2 - 1].lstrip()) and not "".join(code[a2 - 1:b2]).replace("\\", "").strip():
                docs.append((a2, b2))
        if not is_def:
            continue
        ends[a] = end
        if j > k + 1 and not re.match(r"(?:async\s+)?def\s+__init__\b", st):
            blank.append((logical[k + 1][0], end))
    if not blank:
        return text, ends, docs
    out = list(lines)
    done_to = 0
    for a, b in sorted(blank):
        if a <= done_to:
            continue  # inside a function already blanked
        first = out[a - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        for ln in range(a, b + 1):
            src = out[ln - 1]
            out[ln - 1] = "\r\n" if src.endswith("\r\n") else ("\n" if src.endswith("\n") else "")
        out[a - 1] = f"{indent}...\n"
        done_to = b
    return "".join(out), ends, docs


#: statement types holding statement lists, and those lists' fields (``_defs``)
_NESTED: dict = {ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
                 ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
                 ast.Try: ("body", "handlers", "orelse", "finalbody"), ast.ExceptHandler: ("body",),
                 ast.FunctionDef: ("body",), ast.AsyncFunctionDef: ("body",), ast.ClassDef: ("body",)}
for _name, _fields in (("TryStar", ("body", "handlers", "orelse", "finalbody")), ("Match", ("cases",)),
                       ("match_case", ("body",))):
    if hasattr(ast, _name):
        _NESTED[getattr(ast, _name)] = _fields
_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _defs(body: list) -> Iterable[ast.AST]:
    """The functions and classes at any depth (defs and classes only occur as statements: no
    walk of expressions needed), without looking into the statements that hold no others (a
    type lookup each, where reading five fields of each of timm's ~40k statements cost 2.5x
    the time)."""
    nested = _NESTED
    stack = list(body)
    while stack:
        st = stack.pop()
        fields = nested.get(type(st))
        if fields is None:
            continue
        if isinstance(st, _DEF_TYPES):
            yield st
        for sub in fields:
            stack.extend(getattr(st, sub))


def docs_of_tree(tree: ast.Module, text: str) -> list[tuple[int, int]]:
    """The docstring spans ``skeleton_and_docs`` finds, from the whole file's tree: the first
    statement of a function's or class's body, on lines of its own after the header, a
    string (or implicitly joined strings) spanning several lines and nothing else on them
    but whitespace, backslashes and comments, its first line opening with a triple quote."""
    lines: Optional[list[str]] = None
    out: list[tuple[int, int]] = []
    for node in _defs(tree.body):
        if not node.body:
            continue
        first = node.body[0]
        if not isinstance(first, ast.Expr) or first.end_lineno is None or first.end_lineno <= first.lineno:
            continue
        v = first.value
        if not (isinstance(v, ast.JoinedStr) or (isinstance(v, ast.Constant) and isinstance(v.value, (str, bytes)))):
            continue
        if lines is None:
            lines = split_lines(text)
        a, b = first.lineno, first.end_lineno
        if b > len(lines) or len(node.body) > 1 and node.body[1].lineno <= b:
            continue
        la = lines[a - 1].encode("utf-8", "surrogatepass")
        if la[: first.col_offset].strip() or not _DOC_START.match(lines[a - 1].lstrip()):
            continue
        rest = lines[b - 1].encode("utf-8", "surrogatepass")[first.end_col_offset:].strip()
        if rest and not rest.startswith(b"#") and rest != b"\\":
            continue
        out.append((a, b))
    return sorted(out)


#: the line separators of ``str.splitlines`` that Python's tokenizer does not count
_OTHER_BREAKS = ("\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


#: (text, its lines) of the last ``split_lines`` call: the index, the outline, the reduction
#: and the engine split the same text one after the other
_SPLIT_LAST: tuple = (None, [])


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (``str.splitlines`` also splits on form feeds
    and other separators, which would shift ``ast`` line numbers). The list may be the one
    the last call on the same text returned: callers read it, never change it."""
    global _SPLIT_LAST
    last = _SPLIT_LAST
    if last[0] is text:
        return last[1]
    lines = _split_lines(text)
    _SPLIT_LAST = (text, lines)
    return lines


def _split_lines(text: str) -> list[str]:
    for b in _OTHER_BREAKS:
        if b in text:
            return _LINES.findall(text)
    return text.splitlines(True)  # the same lines, several times faster


@dataclass
class Func:
    name: str
    start: int  # first line (decorators included)
    end: int
    #: first line of the body when it starts on its own line, else 0 (never removed)
    body: int
    #: for ``__init__``: statements the semantic model does not read (spans), when the
    #: function is kept
    drop: list = field(default_factory=list)
    #: the line of ``def`` (after the decorators)
    def_line: int = 0
    #: for ``__init__``: its parameter list as the model reads it (names, and the defaults
    #: that may be literals; no annotations), on one line; None when it cannot be written so
    sig: Optional[str] = None
    #: a module-level function (or, ``REMOVE_METHODS``, a method but a dunder) whose
    #: decorators say nothing to the model or the rules: when removed (not reached), it
    #: goes whole
    removable: bool = False
    #: defined in a class body
    is_method: bool = False
    #: for ``__init__``: statements written shorter (``_init_drop``): (first line, last line,
    #: new text, the attribute ``x`` of a ``self.x = <value>`` or None)
    shrink: list = field(default_factory=list)
    #: for ``__init__``: (self name, what the model's ``_InitScanner`` reads of the body once
    #: dropped and shortened, in its order) when that is only plain attribute values
    #: (``_init_values``); None: the body has more
    init_values: Optional[tuple] = None
    #: for ``__init__`` when ``init_values`` is None: (self name, ((first line, last line, attr,
    #: value), ...)): its shortened ``self.x = <plain value>`` statements (``_init_marks``)
    init_marks: Optional[tuple] = None
    #: for a method: its class's name
    cls: str = ""


#: what the model reads in ``__init__``: ``self.x = ...`` and these ``self.<call>(...)``
_INIT_CALLS = frozenset({"register_buffer", "register_parameter", "add_module", "register_module"})
#: set False to keep ``__init__`` bodies whole
PRUNE_INIT = True
#: set False to keep the compound statements of ``__init__`` (``if``/``for``/``with``/``try``)
#: whose blocks hold nothing the model reads (each then keeps a header and a ``...`` per block)
DROP_EMPTY_BLOCKS = True
#: set False to keep every `...` written for removed code; True: one stays only where its
#: block would be empty without it (a statement node less per removed line: libcst builds
#: ~10 nodes for a `...` line, one for an empty line)
DROP_DOTS = True
#: set False to keep the header (``def name():``) of every method no kept code names; True:
#: such a method goes whole, as a module-level function does, unless a dunder or decorated
#: by a torch API or a name the custom-op scan reads
REMOVE_METHODS = True
#: set False to leave the lines a kept ``__init__`` no longer needs empty; True: a run of 3 or
#: more becomes one string statement (``_fold_blanks``)
FOLD_INIT_BLANKS = True
#: set False to write each removed definition or assignment as its own string; True: those
#: one after the other with only empty lines between share one
MERGE_REMOVED = True
#: set False to keep every kept ``__init__`` body in the text libcst parses; True: a body whose
#: statements, once dropped and shortened, are only ``self.x = <plain value>`` (a literal
#: ``0``/``None``/bool/int, a call of a dotted name without arguments) and blocks of them
#: goes whole (a string statement, as a removed body), and the model builds those attributes'
#: facts from ``Func.init_values`` (``SemanticModel(init_values=...)``): the same facts,
#: without libcst parsing the statements (~a quarter of the parse of timm's reduced files)
BLANK_PLAIN_INIT = True
#: set False to keep the headers of functions as written. The headers of removed functions
#: become ``def name():`` (the model reads only their names and decorators), and the
#: header of a kept ``__init__`` keeps only what its readers use (``_compact_sig``): timm's
#: signatures are long (annotated, defaulted parameters on lines of their own)
COMPACT_HEADERS = True


def reduce_flags() -> tuple:
    """The switches above as they are now (a reduction computed under others is another one)."""
    return (PRUNE_INIT, DROP_EMPTY_BLOCKS, DROP_DOTS, REMOVE_METHODS, FOLD_INIT_BLANKS, MERGE_REMOVED,
            COMPACT_HEADERS, _MIN_SAVED_FRACTION, BLANK_PLAIN_INIT)


_DEF_HEAD = re.compile(r"([ \t]*(?:async[ \t]+)?def[ \t]+)([^\W\d]\w*)[ \t]*\(")
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def _init_keeps(st: ast.AST, self_name: str) -> bool:
    if isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        for t in targets:
            if type(t) is ast.Attribute and type(t.value) is ast.Name:
                if t.value.id == self_name:  # (what the walk below finds in `x.attr`)
                    return True
                continue
            if type(t) is ast.Name:
                continue
            for n in ast.walk(t):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == self_name:
                    return True
        return False
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        f = st.value.func
        return (isinstance(f, ast.Attribute) and f.attr in _INIT_CALLS and isinstance(f.value, ast.Name)
                and f.value.id == self_name)
    return False


def _real_end(st: ast.AST, ends: Optional[dict[int, int]]) -> int:
    """A statement's last line in the original text (the tree may be a skeleton's, where
    nested function bodies are blanked)."""
    end = st.end_lineno
    if ends and isinstance(st, (*_FUNCS, ast.ClassDef, *_COMPOUND)):
        for n in ast.walk(st):
            if isinstance(n, _FUNCS):
                end = max(end, ends.get(n.lineno, end))
    return end


#: values of ``self.x = <value>`` the model classifies as Python config whatever they hold
#: (``model._InitScanner._classify``: literals and these node types), unless a list, tuple
#: or list comprehension (whose type ``flow._static_pieces`` reads)
_CONFIG_VALUES = (ast.Constant, ast.Name, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp,
                  ast.Subscript, ast.Dict, ast.Set, ast.DictComp, ast.SetComp)


#: torch constructors whose arguments no reader of ``__init__`` looks at: what the attribute
#: is (parameter, submodule) follows from the name alone, and no rule or op-table record
#: names them (tests/test_project.py checks the tables)
_ARGLESS_TORCH = frozenset({
    "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Identity", "torch.nn.Dropout",
    "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d", "torch.nn.AlphaDropout",
    "torch.nn.FeatureAlphaDropout",
})


#: words of the whole-file scans of the rules (``checks.quantized``, ``checks.ops._LibraryScan``,
#: ``checks.shapes`` ``Dim(min=...)``, export calls): a call naming one stays in the arguments
_SCANNED_CALL_WORDS = ("quantiz", "prepare", "convert", "dim", "register", "library", "custom", "export", "onnx",
                       "jit", "script", "trace", "symbolic", "fake", "meta", "impl", "sym_")


#: torch constructors whose arguments a rule reads where forward calls the submodule:
#: never shortened, whatever the op table says (checks.embedding_renorm reads
#: ``nn.Embedding(.., max_norm=..)``, checks.attention_modules ``batch_first=True``; a test
#: checks that these sets hold the rules' own, tests/test_reduce_invariance.py). A constant,
#: not a registry the rules fill when imported: a worker may reduce before it imports them.
_ATTN = ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
         "TransformerDecoder", "Transformer")
_ARGS_READ = frozenset(
    {"torch.nn.Embedding", "torch.nn.modules.sparse.Embedding", "torch.nn.modules.Embedding",
     "torch.nn.EmbeddingBag", "torch.nn.modules.sparse.EmbeddingBag",
     "torch.nn.modules.EmbeddingBag", "torch.nn.LSTM", "torch.nn.modules.rnn.LSTM", "torch.nn.modules.LSTM",
     "torch.nn.modules.activation.MultiheadAttention"}
    | {f"torch.nn.{n}" for n in _ATTN} | {f"torch.nn.modules.transformer.{n}" for n in _ATTN[1:]})


#: max/avg pooling constructors: ``checks.ceil_pool`` (EXL131) reads their ``ceil_mode`` and stride
_POOLS = frozenset(f"torch.nn{m}.{k}Pool{n}d" for m in ("", ".modules.pooling") for k in ("Max", "Avg") for n in (1, 2, 3))


def _ceil_read(q: Optional[str], v: ast.Call) -> bool:
    """A pooling constructor that may set ``ceil_mode`` (by keyword, or positionally: 4+ arguments)."""
    return q in _POOLS and (any(k.arg == "ceil_mode" for k in v.keywords) or len(v.args) > 3)


@lru_cache(maxsize=1)
def _silent_modules() -> frozenset:
    """torch.nn module constructors whose arguments no reader looks at: an op-table record
    (``checks.ops``: matched at the constructor of a submodule called in forward, its
    conditions read the arguments) that can give no finding whatever the arguments say (no
    exporter fails it in any variant, no legacy opset needed, a dynamo opset at most the
    one the exporter keeps anyway, ``checks.ops.OpsetTooLow``); adaptive pooling is read by
    ``checks.shapes`` (output size), ModuleList / Sequential by the model (their items)."""
    try:
        from exportlint.ops import table as optable

        tbl = optable.load()
    except (OSError, ValueError):  # no readable table: every constructor keeps its arguments
        return frozenset()
    if tbl is None:
        return frozenset()
    dyn = tbl.registries.get("onnx-dynamo", {})
    lim = max(int(dyn.get("baseline_opset", 0)), int(dyn.get("registry_opset", 18)))
    out = set()
    for name, rec in tbl.apis.items():
        if not rec.get("module") or not name.startswith("torch.nn.") or "Adaptive" in name:
            continue
        ok = True
        for v in [rec] + list(rec.get("variants", ())):
            o = v.get("opset", {})
            if v.get("fail") or "onnx-legacy" in o or int(o.get("onnx-dynamo", 0)) > lim:
                ok = False
                break
        if ok:
            out.add(name)
    return frozenset(out)


def _plain_args(call: ast.Call, torchish: dict) -> bool:
    """Arguments with no call of a torch API nor of a name a whole-file scan of the rules
    looks for, and no ``custom_translation_table=``: what only the constructor's readers see."""
    for kw in call.keywords:
        if kw.arg == "custom_translation_table":
            return False
    for a in list(call.args) + [k.value for k in call.keywords]:
        for n in ast.walk(a):
            if isinstance(n, ast.Call):
                head = _dotted_head(n.func)
                if head is None or head in torchish:
                    return False
                f = n.func
                last = (f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "").lower()
                if any(w in last for w in _SCANNED_CALL_WORDS):
                    return False
    return True


def _qualified(e: ast.AST, names: dict) -> Optional[str]:
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if not isinstance(e, ast.Name) or names.get(e.id) is None:
        return None
    return ".".join([names[e.id]] + list(reversed(parts)))


#: decorator names the custom-op scan of the ops rules reads (``checks.ops._LibraryScan``)
_LIBRARY_WORDS = ("custom", "fake", "impl", "meta", "kernel", "abstract", "symbolic", "library", "register_autograd")


def _plain_decorator(d: ast.AST, torchish: dict) -> bool:
    """``@name`` / ``@name(...)``, the name bound to no torch API and naming nothing the
    custom-op scan looks for (``@register_model``, ``@lru_cache``)."""
    if isinstance(d, ast.Call):
        d = d.func
    if not isinstance(d, ast.Name) or d.id in torchish:
        return False
    low = d.id.lower()
    return not any(w in low for w in _LIBRARY_WORDS)


#: torch decorators read only on a function the model analyses (``flow``: the jit ones keep
#: it Python-side, the grad modes are no export matter), never by a whole-file scan: a method
#: no kept code names, decorated so, goes whole (``REMOVE_METHODS``)
_INERT_DECORATORS = frozenset({"torch.jit.ignore", "torch.jit.unused", "torch.jit._script.ignore",
                               "torch.jit._script.unused", "torch.no_grad", "torch.enable_grad",
                               "torch.inference_mode"})


def _inert_decorator(d: ast.AST, torchish: dict) -> bool:
    """``@torch.jit.ignore``, ``@torch.no_grad()`` (``_INERT_DECORATORS``), written with any
    alias of the names the file imports from torch."""
    if isinstance(d, ast.Call):
        d = d.func
    return _qualified(d, torchish) in _INERT_DECORATORS


def _dotted_head(e: ast.AST) -> Optional[str]:
    while isinstance(e, ast.Attribute):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def torch_names(tree: ast.Module) -> Optional[dict]:
    """Local names the file's module-level imports bind to torch (or torchvision, functorch):
    what the model and the rules may resolve to a torch API, with the module or name each
    stands for (None: bound more than once). None when a star import from torch leaves it
    open."""
    out: dict = {"torch": "torch"}
    bound: dict = {}
    stack = list(tree.body)  # module-level statements, in blocks too (not in defs or classes)
    while stack:
        st = stack.pop()
        if isinstance(st, (*_FUNCS, ast.ClassDef)):
            continue
        for sub in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(st, sub, None) or ())
        if isinstance(st, ast.Import):
            for a in st.names:
                local = a.asname or a.name.split(".", 1)[0]
                bound.setdefault(local, set()).add(a.name if a.asname else local)
                if a.name.startswith("torch") or a.name.startswith("functorch"):
                    out[local] = None
        elif isinstance(st, ast.ImportFrom):
            for a in st.names:
                if a.name == "*":
                    if not st.level and (st.module or "").startswith(("torch", "functorch")):
                        return None
                    continue
                local = a.asname or a.name
                bound.setdefault(local, set()).add(("." * st.level) + f"{st.module or ''}.{a.name}")
                if not st.level and (st.module or "").startswith(("torch", "functorch")):
                    out[local] = None
    for local in out:
        b = bound.get(local)
        if b is not None:
            out[local] = next(iter(b)) if len(b) == 1 else None
    return out


def _shrunk_value(v: ast.AST, blines: list[bytes], torchish: dict) -> Optional[str]:
    """A shorter value for ``self.x = <v>`` in ``__init__`` that the model and the rules read
    as they read ``v``: a constructor call of no torch API without its arguments (only the
    callee's name decides what the attribute is: a submodule of a local or project class,
    or unknown), or ``0`` for a Python config value. None: keep ``v``."""
    if isinstance(v, ast.Call):
        head = _dotted_head(v.func)
        if head is None or not (v.args or v.keywords):
            return None
        if head in torchish:
            q = _qualified(v.func, torchish)
            if q in _CONTAINERS:
                return _container_value(v, blines, torchish)
            if q in _ARGS_READ or _ceil_read(q, v) or (q not in _ARGLESS_TORCH and (q not in _silent_modules() or not _plain_args(v, torchish))):
                return None
        f = v.func
        if f.end_lineno != f.lineno or f.lineno > len(blines):
            return None
        try:
            return blines[f.lineno - 1][f.col_offset:f.end_col_offset].decode("utf-8", "surrogatepass") + "()"
        except UnicodeDecodeError:
            return None
    if isinstance(v, ast.Constant) and (v.value is None or isinstance(v.value, (bool, int))):
        return None  # kept: `self._alpha = None` is what a reset in forward is compared with (flow._reset_to_init)
    if isinstance(v, _CONFIG_VALUES) and not (isinstance(v, ast.Constant) and v.value is Ellipsis):
        return "0"
    return None


#: containers whose items the model reads (``SemanticModel.submodule_class``: the callee of
#: each item, all calls; ``checks.shapes._adaptive_list``: adaptive pools and their sizes)
_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList"})


def _func_text(call: ast.Call, blines: list[bytes]) -> Optional[str]:
    f = call.func
    if f.end_lineno != f.lineno or f.lineno > len(blines):
        return None
    try:
        return blines[f.lineno - 1][f.col_offset:f.end_col_offset].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def _container_value(v: ast.Call, blines: list[bytes], torchish: dict) -> Optional[str]:
    """``nn.Sequential(...)`` / ``nn.ModuleList(...)`` with each item written without its
    arguments, the shape its readers look at kept (one list, tuple or comprehension argument,
    starred or not, or several calls): when every item is a call whose arguments no reader
    looks at (``_item_short``). None: keep ``v``."""
    if v.keywords or not v.args:
        return None
    fn = _func_text(v, blines)
    if fn is None:
        return None
    if len(v.args) == 1:
        a = v.args[0]
        star = "*" if isinstance(a, ast.Starred) else ""
        inner = a.value if star else a
        if isinstance(inner, (ast.List, ast.Tuple)):
            items = [_item_short(e, blines, torchish) for e in inner.elts]
            if not items or any(i is None for i in items):
                return None
            body = ", ".join(items)
            return f"{fn}({star}[{body}])" if isinstance(inner, ast.List) else \
                f"{fn}({star}({body}{',' if len(items) == 1 else ''}))"
        if isinstance(inner, (ast.ListComp, ast.GeneratorExp)):
            item = _item_short(inner.elt, blines, torchish)
            if item is None:
                return None
            return f"{fn}({star}[{item} for _ in 0])" if isinstance(inner, ast.ListComp) else \
                f"{fn}({star}({item} for _ in 0))"
    if any(isinstance(a, ast.Starred) for a in v.args):
        return None
    items = [_item_short(e, blines, torchish) for e in v.args]
    if any(i is None for i in items):
        return None
    return f"{fn}({', '.join(items)})"


def _item_short(e: ast.AST, blines: list[bytes], torchish: dict) -> Optional[str]:
    """``Block()`` for an item ``Block(...)`` of a container: a call of no torch API, or of a
    torch constructor that takes no argument or whose arguments no rule reads
    (``_silent_modules``), with no argument a whole-file scan looks at. None: keep it."""
    if not isinstance(e, ast.Call):
        return None
    head = _dotted_head(e.func)
    if head is None or not _plain_args(e, torchish):
        return None
    if head in torchish:
        q = _qualified(e.func, torchish)
        if q in _ARGS_READ or _ceil_read(q, e) or (q not in _ARGLESS_TORCH and q not in _silent_modules()):
            return None
    fn = _func_text(e, blines)
    return None if fn is None else fn + "()"


def _module_value(v: ast.AST, blines: list[bytes], torchish: Optional[dict]) -> Optional[str]:
    """A shorter value for a module-level ``name = <v>`` that the model reads as it reads
    ``v`` (``model._static_kind``: a literal is a constant, a call of a torch API may be a
    tensor, anything else is unknown): a call of no torch API without its arguments, and
    ``_`` for a display (dict, list, ...) holding a call (never a literal). None: keep ``v``."""
    if torchish is None:
        return None
    if isinstance(v, ast.Call):
        return _shrunk_value(v, blines, torchish)
    if isinstance(v, (ast.Dict, ast.List, ast.Tuple, ast.Set)) and v.end_lineno > v.lineno:
        if any(isinstance(n, ast.Call) for n in ast.walk(v)):
            return "_"
    return None


def _init_drop(fn: ast.AST, blines: list[bytes], ends: Optional[dict[int, int]] = None,
               shrink: Optional[list] = None, torchish: Optional[dict] = None) -> list[tuple[int, int]]:
    """Spans of statements of ``__init__`` (at any depth) the model does not read; each
    occupies its lines alone (no other statement, no block header shares them). With
    ``shrink``, also the ``self.x = <value>`` statements (alone on their lines) whose value
    can be shorter (``_shrunk_value``): (first line, last line, new statement)."""
    args = fn.args.posonlyargs + fn.args.args
    if not args:
        return []
    self_name = args[0].arg
    out: list[tuple[int, int]] = []

    def starts_line(st: ast.AST, line: int) -> bool:
        b = blines[line - 1] if 0 < line <= len(blines) else b""
        return not b[: st.col_offset].strip()

    def header(st: ast.AST) -> None:
        """``if``/``elif``/``while``/``for``/``with`` headers on lines of their own become
        ``if 0:`` ... (``_InitScanner`` reads the blocks, never the tests or targets)."""
        if isinstance(st, (ast.If, ast.While)):
            last, new = st.test, "{kw} 0"
        elif isinstance(st, ast.For):
            last, new = st.iter, "for _ in 0"
        elif isinstance(st, ast.With) and st.items:
            last, new = st.items[-1].context_expr, "with 0"
            if st.items[-1].optional_vars is not None:
                last = st.items[-1].optional_vars
        else:
            return
        first = st.body[0]
        body_line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
        if body_line <= last.end_lineno or not starts_line(st, st.lineno):
            return
        kw = blines[st.lineno - 1][st.col_offset:].split(None, 1)[0] if st.lineno <= len(blines) else b""
        if kw not in (b"if", b"elif", b"while", b"for", b"with") and not kw.startswith((b"if", b"elif", b"while")):
            return
        word = kw.decode()
        for k in ("elif", "if", "while", "for", "with"):
            if word.startswith(k):
                word = k
                break
        if (word in ("if", "elif", "while")) != isinstance(st, (ast.If, ast.While)):
            return
        shrink.append((st.lineno, body_line - 1, new.format(kw=word) + ":", None))

    def block(body: list) -> bool:
        """Drops what the model does not read in ``body``; True when all of it went."""
        gone = True
        for i, st in enumerate(body):
            if isinstance(st, _COMPOUND) or type(st).__name__ in ("TryStar", "Match"):
                n_out, n_shrink = len(out), len(shrink) if shrink is not None else 0
                if shrink is not None and torchish is not None:
                    header(st)
                inner = True
                for sub in ("body", "orelse", "finalbody"):
                    inner = block(getattr(st, sub, None) or []) and inner
                for h in getattr(st, "handlers", ()):
                    inner = block(h.body) and inner
                for c in getattr(st, "cases", ()):
                    inner = block(c.body) and inner
                if inner and DROP_EMPTY_BLOCKS and placeable(body, i, st):
                    # nothing in any of its blocks is read: the statement goes whole (its test,
                    # iterable or context manager are never read either), one span instead of
                    # a header and a `...` per block
                    del out[n_out:]
                    if shrink is not None:
                        del shrink[n_shrink:]
                    out.append(placeable(body, i, st))
                else:
                    gone = False
                continue
            keep = _init_keeps(st, self_name)
            new = None
            attr = None
            if keep:
                if shrink is None or torchish is None or not isinstance(st, ast.Assign) or len(st.targets) != 1:
                    gone = False
                    continue
                t = st.targets[0]
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == self_name:
                    new = _shrunk_value(st.value, blines, torchish)
                    attr = t.attr
                    if new is not None:
                        new = f"{self_name}.{t.attr} = {new}"
                    elif isinstance(st.value, (ast.List, ast.Tuple, ast.ListComp)) or (
                            isinstance(st.value, ast.Call) and _dotted_head(st.value.func) not in torchish):
                        new = ""  # kept as written, unless no kept code names the attribute
                    else:
                        gone = False
                        continue
                elif t.end_lineno == t.lineno and t.lineno <= len(blines):
                    # (a, self.b) = ..., self.d[k] = ...: the model records only `self.x = ...`
                    try:
                        tt = blines[t.lineno - 1][t.col_offset:t.end_col_offset].decode("utf-8", "surrogatepass")
                    except UnicodeDecodeError:
                        gone = False
                        continue
                    new = f"{tt} = 0"
                else:
                    gone = False
                    continue
            span = placeable(body, i, st)
            if span is None:
                gone = False
                continue
            if new is not None:
                gone = False
                shrink.append((span[0], span[1], new, attr))  # ("": as written unless unused)
            else:
                out.append(span)
        return gone

    def placeable(body: list, i: int, st: ast.AST) -> Optional[tuple[int, int]]:
        """The lines of ``body[i]`` when no other statement shares them, else None."""
        start = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", ())])
        prev_end = _real_end(body[i - 1], ends) if i > 0 else 0
        nxt = body[i + 1] if i + 1 < len(body) else None
        end = _real_end(st, ends)
        if nxt is not None:
            nxt_start = min([nxt.lineno] + [d.lineno for d in getattr(nxt, "decorator_list", ())])
            if nxt_start <= end:
                return None
        if start <= prev_end:
            return None
        if start == st.lineno and not starts_line(st, start):
            return None
        return start, end

    block(fn.body)
    return out


def _plain_init(items: tuple, names: set) -> Optional[tuple]:
    """The ``(attr, value)`` facts of ``Func.init_values`` items once the names kept code reads
    are known (``reduce_source``), or None when a statement stays as written."""
    out = []
    for it in items:
        if len(it) == 3 and it[0] not in names:
            continue  # written `...`: no fact
        if it[1] is None:
            return None
        out.append((it[0], it[1]))
    return tuple(out)


def _plain_callee(parts: Optional[tuple], torchish: dict) -> Optional[tuple]:
    """``parts`` (of ``a.b.C()``) when the call's node is one no reader reports at nor a scan
    looks for: a callee bound to no torch API, or a torch constructor no rule or op-table
    record can report (``_ARGLESS_TORCH``, ``_silent_modules``); no word a whole-file scan
    reads."""
    if parts is None:
        return None
    low = ".".join(parts).lower()
    if parts[0] in torchish:
        q = ".".join((torchish[parts[0]] or "?",) + parts[1:])
        if q in _ARGS_READ or (q not in _ARGLESS_TORCH and q not in _silent_modules()):
            return None
        low = q.lower()  # (`nnq.Linear`: torch.nn.quantized.Linear)
    if any(w in low for w in _SCANNED_CALL_WORDS + _LIBRARY_WORDS):
        return None
    return parts


#: what stands in the reduced text for a run of ``self.x = <plain value>`` statements of an
#: ``__init__`` that keeps other statements (``_init_marks``): the name ``<MARK><k>_<n>__``,
#: the n values of the class's ``init_values`` entry from the k-th (``model._InitScanner``); a
#: file whose text holds it anywhere gets none
INIT_MARK = "__exl_init_"


def _init_marks(fn: ast.AST, f: Func, torchish: Optional[dict], blines: Any) -> Optional[tuple]:
    """Runs of ``self.x = <plain value>`` statements of ``__init__`` (value as in
    ``_init_values``), each statement on lines of its own (shortened ones: ``f.shrink``; or
    written so: a literal, a call without arguments), one after the other in one block (what
    ``f.drop`` removes between them does not break a run), at any depth, in order: ``(first
    line, last line, ((attr, value, always), ...))``; ``always``: a statement kept as written
    (else one written ``...`` when no kept code names ``attr``). ``reduce_source`` writes each
    run holding a fact as one name (``INIT_MARK``), and the model reads the facts there, in the
    scanner's order."""
    args = fn.args.posonlyargs + fn.args.args
    if not args or not f.body or torchish is None:
        return None
    self_name = args[0].arg
    shr = {a: (b, new, attr) for a, b, new, attr in f.shrink}
    drops = f.drop
    runs: list = []

    def alone(st: ast.AST) -> bool:
        if not (0 < st.lineno <= st.end_lineno <= len(blines)):
            return False
        rest = blines[st.end_lineno - 1][st.end_col_offset:].strip()
        return not blines[st.lineno - 1][:st.col_offset].strip() and (not rest or rest.startswith(b"#"))

    def item(st: ast.AST) -> Optional[tuple]:
        """(last line, (attr, value, always)) for a statement a run may hold, else None."""
        if type(st) is not ast.Assign or len(st.targets) != 1:
            return None
        tg = st.targets[0]
        if not (type(tg) is ast.Attribute and type(tg.value) is ast.Name and tg.value.id == self_name):
            return None
        s = shr.get(st.lineno)
        if s is None:  # kept as written
            v = st.value
            if type(v) is ast.Constant and (v.value is None or type(v.value) in (bool, int)):
                value = ("const", v.value) if v.value is None or type(v.value) is bool else ("int", v.value)
            else:
                parts = _plain_callee(_bare_call(v), torchish)
                value = None if parts is None else ("call", parts)
            return (st.end_lineno, (tg.attr, value, True)) if value is not None and alone(st) else None
        b, new, attr = s
        if attr != tg.attr:
            return None
        head = f"{self_name}.{attr} = "
        value = None
        if not new:
            parts = _plain_callee(_bare_call(st.value), torchish)
            value = None if parts is None else ("call", parts)
        elif new.startswith(head):
            short = new[len(head):]
            if short == "0":
                value = ("int", 0)
            elif short.endswith("()") and all(p.strip().isidentifier() for p in short[:-2].split(".")):
                parts = _plain_callee(tuple(p.strip() for p in short[:-2].split(".")), torchish)
                value = None if parts is None else ("call", parts)
        return (b, (attr, value, False)) if value is not None else None

    def block(body: list) -> None:
        cur: Optional[list] = None
        for st in body:
            if any(a <= st.lineno <= b for a, b in drops):
                continue  # removed: no text, no fact (a run goes on over it)
            it = item(st)
            if it is not None:
                if cur is None:
                    cur = [st.lineno, it[0], [it[1]]]
                    runs.append(cur)
                else:
                    cur[1] = it[0]
                    cur[2].append(it[1])
                continue
            cur = None
            if isinstance(st, (*_FUNCS, ast.ClassDef)):
                continue
            for sub in ("body", "orelse", "finalbody"):
                block(getattr(st, sub, None) or [])
            for h in getattr(st, "handlers", ()) or ():
                block(h.body)
            for c in getattr(st, "cases", ()) or ():
                block(c.body)

    block(fn.body)
    return (self_name, tuple((a, b, tuple(items)) for a, b, items in runs)) if runs else None


def _bare_call(v: ast.AST) -> Optional[tuple]:
    """The name parts of ``a.b.C()``: a call of a dotted name with no argument, else None."""
    if type(v) is not ast.Call or v.args or v.keywords:
        return None
    parts = []
    e = v.func
    while type(e) is ast.Attribute:
        parts.append(e.attr)
        e = e.value
    if type(e) is not ast.Name:
        return None
    parts.append(e.id)
    return tuple(reversed(parts))


def _init_values(fn: ast.AST, f: Func, torchish: Optional[dict]) -> Optional[tuple]:
    """What ``model._InitScanner`` reads of ``__init__`` once ``f.drop`` and ``f.shrink`` are
    applied, when that is only ``self.x = <plain value>`` statements in blocks whose headers
    were written ``if 0:`` / ``for _ in 0:`` (the scanner reads the blocks of ``if``/``for``/
    ``while``, in its order: body, then ``elif``/``else``), else None. Items, in order:
    ``(attr, value)`` with value ``("int", n)`` / ``("const", None|True|False)`` / ``("call",
    dotted name parts)``, or ``(attr, None)``: a statement kept as written when a kept function
    names ``attr`` (then the body stays: None at reduce time), else written ``...``. An item
    whose statement is written ``...`` when no kept code names ``attr`` carries ``attr`` first
    in a 3-tuple: ``(attr, value, True)``."""
    args = fn.args.posonlyargs + fn.args.args
    if not args or not f.body or torchish is None:
        return None
    self_name = args[0].arg
    drops = f.drop

    def plain(parts: Optional[tuple]) -> Optional[tuple]:
        return _plain_callee(parts, torchish)
    shr = {a: (new, attr) for a, _, new, attr in f.shrink}
    items: list = []

    def dropped(st: ast.AST) -> bool:
        return any(a <= st.lineno <= b for a, b in drops)

    def block(body: list) -> bool:
        for st in body:
            if dropped(st):
                continue
            t = type(st)
            if t in (ast.If, ast.For, ast.While):
                h = shr.get(st.lineno)
                if h is None or h[1] is not None:
                    return False  # a header kept as written (a scan may read it)
                if not block(st.body) or not block(st.orelse):
                    return False
                continue
            if t is ast.Pass or (t is ast.Expr and type(st.value) is ast.Constant):
                continue
            if t is not ast.Assign or len(st.targets) != 1:
                return False
            tg = st.targets[0]
            s = shr.get(st.lineno)
            if not (type(tg) is ast.Attribute and type(tg.value) is ast.Name and tg.value.id == self_name):
                if s is not None and s[1] is None and s[0]:
                    continue  # `(a, self.b) = 0`, `self.d[k] = 0`: the scanner records no fact
                return False
            if s is None:
                v = st.value
                if type(v) is ast.Constant and (v.value is None or type(v.value) in (bool, int)):
                    items.append((tg.attr, ("const", v.value) if v.value is None or type(v.value) is bool
                                  else ("int", v.value)))
                    continue
                parts = plain(_bare_call(v))
                if parts is None:
                    return False
                items.append((tg.attr, ("call", parts)))  # `nn.Identity()`: kept as written
                continue
            new, attr = s
            if attr != tg.attr:
                return False
            head = f"{self_name}.{attr} = "
            if not new:
                # as written when named, else `...`
                parts = plain(_bare_call(st.value))
                items.append((attr, None if parts is None else ("call", parts), True))
                continue
            if not new.startswith(head):
                return False
            short = new[len(head):]
            if short == "0":
                items.append((attr, ("int", 0), True))
            elif short.endswith("()") and all(p.strip().isidentifier() for p in short[:-2].split(".")) and plain(
                    tuple(p.strip() for p in short[:-2].split("."))) is not None:
                items.append((attr, ("call", tuple(p.strip() for p in short[:-2].split("."))), True))
            else:
                items.append((attr, None, True))  # a container written shorter: kept when named
        return True

    if not block(fn.body):
        return None
    return (self_name, tuple(items))


@dataclass
class Outline:
    funcs: list[Func] = field(default_factory=list)
    #: class name -> (methods, spans of the other statements of the class, header span)
    classes: dict[str, tuple[list[Func], list[tuple[int, int]]]] = field(default_factory=dict)
    #: removable module-level assignments: (target names, first line, last line)
    assigns: list[tuple[frozenset, int, int]] = field(default_factory=list)
    #: other module-level statements (always kept): spans
    other: list[tuple[int, int]] = field(default_factory=list)
    lines: int = 0
    #: the text's lines without strings and comments (``code_lines``), when computed
    code: Optional[list] = None
    #: multi-line docstrings of functions and classes (spans): never read by the model
    docs: list = field(default_factory=list)
    #: index in ``assigns`` -> the assignment written shorter, same static kind
    #: (``_module_value``)
    assign_short: dict = field(default_factory=dict)
    #: names of classes defined more than once outside functions (the model keeps one class
    #: per name: ``init_values`` is given only for a name that is one class)
    dup_classes: frozenset = frozenset()


def _func(fn: ast.AST, ends: Optional[dict[int, int]] = None) -> Func:
    start = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    first = fn.body[0]
    # (a decorated nested def first in the body starts at its decorator)
    first_line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
    body = first_line if first_line > _header_end(fn) else 0
    end = (ends or {}).get(fn.lineno, fn.end_lineno)
    return Func(fn.name, start, max(end, fn.end_lineno), body, def_line=fn.lineno)


#: defaults the model reads as "not a literal" whatever they say (``nodes.literal_value``
#: gives MISSING for these node types): written as ``_``
_NOT_LITERAL = (ast.Name, ast.Attribute, ast.Call, ast.BinOp, ast.BoolOp, ast.Compare, ast.Lambda, ast.IfExp,
                ast.Subscript, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Starred)


def _compact_sig(fn: ast.AST, blines: list[bytes]) -> Optional[str]:
    """``(self, sizes=(1, 2, 3))`` for ``__init__``: what its readers use of its header (the
    first parameter's name, ``model._collect_attrs``; the parameters whose default is a
    list or tuple display, ``checks.shapes._init_defaults``, which reads only those), on one
    line. None when a parameter is positional-only or such a default spans lines."""
    a = fn.args
    if a.posonlyargs or not a.args:
        return None
    parts = [a.args[0].arg]
    pos = a.args
    defs = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for p, d in list(zip(pos, defs))[1:] + list(zip(a.kwonlyargs, a.kw_defaults)):
        if not isinstance(d, (ast.Tuple, ast.List)):
            continue
        if d.end_lineno != d.lineno or d.lineno > len(blines):
            return None
        try:
            v = blines[d.lineno - 1][d.col_offset:d.end_col_offset].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None
        parts.append(f"{p.arg}={v}")
    return "(" + ", ".join(parts) + ")"


def _skeleton_end(st: ast.AST, code: list[str]) -> int:
    """The last line a statement of the whole file's tree has in ``skeleton``'s tree, where
    the body of every function but ``__init__`` becomes one ``...`` on the first line of its
    body that holds more than strings and comments (``code``: ``code_lines``)."""
    while True:
        if isinstance(st, _FUNCS) and st.name != "__init__" and st.body:
            first = st.body[0]
            a = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
            for ln in range(a, min(st.end_lineno, len(code)) + 1):
                if code[ln - 1].strip():
                    return ln
            return st.end_lineno
        last = None
        for sub in ("body", "orelse", "finalbody", "handlers", "cases"):
            for x in getattr(st, sub, None) or ():
                if last is None or x.lineno >= last.lineno:
                    last = x
        if last is None:
            return st.end_lineno
        st = last


class _ByteLines:
    """The text's lines as UTF-8 bytes (``ast`` columns count bytes), each encoded when first
    read: the outline reads a few lines of a file (its ``__init__`` statements and module
    values), not all of them."""

    __slots__ = ("lines", "done")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.done: dict[int, bytes] = {}

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int) -> bytes:
        b = self.done.get(i)
        if b is None:
            b = self.done[i] = self.lines[i].encode("utf-8", "surrogatepass")
        return b


def outline(tree: ast.Module, n_lines: int, text: str = "", ends: Optional[dict[int, int]] = None,
            whole_code: Optional[list[str]] = None) -> Outline:
    """Spans of the file's functions, classes and assignments; with ``ends`` (from
    ``skeleton``) the tree may be the skeleton's; with ``whole_code`` (``code_lines``) the
    tree is the whole file's and the spans are the ones its skeleton gives."""
    o = Outline(lines=n_lines)
    torchish: Any = False  # not computed yet
    if whole_code is not None and len(whole_code) == n_lines:
        def end_of(st: ast.AST) -> int:
            return _skeleton_end(st, whole_code)
    else:
        def end_of(st: ast.AST) -> int:
            return st.end_lineno
    blines: Optional[list[bytes]] = None
    body = tree.body
    if BLANK_PLAIN_INIT:
        seen_cls: set = set()
        dup: set = set()
        stack = list(body)
        while stack:  # (module level and its blocks, classes' bodies: never a function's)
            st = stack.pop()
            if isinstance(st, _FUNCS):
                continue
            if isinstance(st, ast.ClassDef):
                (dup if st.name in seen_cls else seen_cls).add(st.name)
            for sub in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(st, sub, None) or ())
        o.dup_classes = frozenset(dup)
    for i, st in enumerate(body):
        if isinstance(st, _FUNCS):
            f = _func(st, ends)
            if COMPACT_HEADERS:
                if torchish is False:
                    torchish = torch_names(tree)
                f.removable = torchish is not None and all(_plain_decorator(d, torchish) for d in st.decorator_list)
            o.funcs.append(f)
        elif isinstance(st, ast.ClassDef):
            methods = []
            other = []
            start = min([st.lineno] + [d.lineno for d in st.decorator_list])
            other.append((start, st.body[0].lineno - 1 if st.body[0].lineno > st.lineno else st.lineno))
            for item in st.body:
                if isinstance(item, _FUNCS):
                    f = _func(item, ends)
                    f.is_method = True
                    f.cls = st.name
                    if COMPACT_HEADERS and REMOVE_METHODS and not item.name.startswith("__"):
                        if torchish is False:
                            torchish = torch_names(tree)
                        f.removable = torchish is not None and all(
                            _plain_decorator(d, torchish) or _inert_decorator(d, torchish)
                            for d in item.decorator_list)
                    if item.name == "__init__" and PRUNE_INIT and text and f.body:
                        if blines is None:
                            blines = _ByteLines(split_lines(text))
                        if COMPACT_HEADERS and torchish is False:
                            torchish = torch_names(tree)
                        f.drop = _init_drop(item, blines, ends, f.shrink if COMPACT_HEADERS else None,
                                            torchish if COMPACT_HEADERS else None)
                        if COMPACT_HEADERS:
                            f.sig = _compact_sig(item, blines)
                            if BLANK_PLAIN_INIT and not isinstance(item, ast.AsyncFunctionDef):
                                f.init_values = _init_values(item, f, torchish)
                                if f.init_values is None:
                                    f.init_marks = _init_marks(item, f, torchish, blines)
                    methods.append(f)
                else:
                    other.append((item.lineno, end_of(item)))
            o.classes[st.name] = (methods, other)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            tn = frozenset(t.id for t in targets if isinstance(t, ast.Name))
            prev_end = body[i - 1].end_lineno if i > 0 else 0
            nxt = body[i + 1].lineno if i + 1 < len(body) else n_lines + 1
            if (len(tn) == len(targets) and "__all__" not in tn and st.lineno > prev_end
                    and st.end_lineno < nxt):
                if COMPACT_HEADERS and isinstance(st, ast.Assign) and text:
                    if torchish is False:
                        torchish = torch_names(tree)
                    if blines is None:
                        blines = _ByteLines(split_lines(text))
                    short = _module_value(st.value, blines, torchish)
                    if short is not None:
                        o.assign_short[len(o.assigns)] = " = ".join(t.id for t in targets) + " = " + short
                o.assigns.append((tn, st.lineno, st.end_lineno))
            else:
                o.other.append((st.lineno, st.end_lineno))
        else:
            o.other.append((st.lineno, end_of(st)))
    return o


def reduce_source(text: str, o: Outline, roots: Iterable[str] = (), init_values: Optional[dict] = None) -> Optional[str]:
    """The reduced text, or None when there is not enough to remove. ``init_values``: filled
    with class name -> (self name, ((attr, value), ...)) for each ``__init__`` whose body went
    (``BLANK_PLAIN_INIT``): the attribute facts the model builds without its statements."""
    lines = split_lines(text)
    if not lines or len(lines) != o.lines:
        return None

    lf_only = "\r" not in text
    code = o.code if o.code is not None else code_lines(text)
    o.code = None  # computed once with the index for the first use; not kept for the whole run
    if len(code) != len(lines):
        code = lines

    def idents(a: int, b: int) -> set:
        return set(_READ_IDENT.findall("".join(code[a - 1:b])))

    by_name: dict[str, list[Func]] = {}
    for f in o.funcs:
        by_name.setdefault(f.name, []).append(f)
    for methods, _ in o.classes.values():
        for f in methods:
            by_name.setdefault(f.name, []).append(f)
    kept: set[int] = set()
    work: list[Func] = []

    def keep(f: Func) -> None:
        if id(f) not in kept:
            kept.add(id(f))
            work.append(f)

    names: set = set()
    if "torch.ops." in text and "library." in text:
        # a file that defines custom ops: its functions calling `torch.ops.` stay, wherever they are
        # reached from (EXL403 reports a call of the file's op in a function no entry reaches)
        for f in o.funcs + [m for methods, _ in o.classes.values() for m in methods]:
            if any("torch.ops." in ln for ln in code[f.start - 1:f.end]):
                keep(f)
    if defines_forward_wrapper(text):
        # a decorator returning a `(self, *args, **kwargs)` wrapper stays whole (EXL130 reports its call)
        for f in o.funcs:
            if not f.is_method and _FORWARD_WRAPPER.search("".join(code[f.start - 1:f.end])):
                keep(f)
    for cname, (methods, other) in o.classes.items():
        has_fwd = any(m.name == "forward" for m in methods)
        for m in methods:
            if has_fwd and m.name in _ALWAYS:
                keep(m)
        for a, b in other:
            names |= idents(a, b)
    #: ``__init__`` of a class another file asks for (a plain class built or annotated there,
    #: ``semantics.objects``): analysed as a function for the kinds it gives its attributes
    #: (parameter annotations, local flow, every ``self.x = ...``), read by the other file, so
    #: kept whole: none of the shortening of a module's ``__init__`` (whose attributes only
    #: this file's kept code reads) applies
    whole_init: set[int] = set()
    for r in roots:
        cname, _, meth = r.partition(".")
        if meth:
            for m in o.classes.get(cname, ((), ()))[0]:
                if m.name == meth:
                    keep(m)
            if meth == "__init__":
                # the instance kind drops an attribute another method of the class (or of a
                # base in this file) assigns (``objects.instance_kind``): those stay too
                todo, done = [cname], set()
                while todo:
                    c = todo.pop()
                    if c in done or c not in o.classes:
                        continue
                    done.add(c)
                    for m in o.classes[c][0]:
                        keep(m)
                        if m.name == "__init__":
                            whole_init.add(id(m))  # (a base's, which ``super().__init__`` runs)
                    head = o.classes[c][1][0] if o.classes[c][1] else None
                    if head is not None:
                        todo.extend(idents(head[0], head[1]) & o.classes.keys())
        else:
            for f in o.funcs:
                if f.name == cname:
                    keep(f)
    for a, b in o.other:
        names |= idents(a, b)
    # names read by __init__ only bring classes (submodule constructors) and module-level
    # values: the model reads __init__ for attribute facts and follows no call from it
    init_names: set = set()
    done_assign: set[int] = set()
    seen: set = set()
    seen_init: set = set()
    while True:
        while work:
            f = work.pop()
            if f.name in ("__init__", "__post_init__"):
                init_names |= idents(f.start, f.end)
            else:
                names |= idents(f.start, f.end)
        new = names - seen
        new_init = init_names - seen_init - new
        if not new and not new_init:
            break
        seen |= new
        seen_init |= new_init
        for n in new:
            for f in by_name.get(n, ()):
                keep(f)
        for n in new | new_init:
            c = o.classes.get(n)
            if c is not None:
                for m in c[0]:
                    if m.name in _ALWAYS:
                        keep(m)
        for i, (tn, a, b) in enumerate(o.assigns):
            if i not in done_assign and (tn & names or tn & init_names):
                done_assign.add(i)
                (names if tn & names else init_names).update(idents(a, b))
    spans: list[tuple[int, int, bool]] = [(a, b, True) for a, b in o.docs]  # first: later spans overwrite
    #: spans of removed definitions and assignments (whole statements): after ``spans``
    whole: list[tuple[int, int, bool]] = []
    heads: list[tuple[Func, str]] = []  # (function, its new parameter list)
    shrinks: list[tuple[int, int, str]] = []
    marks: list[tuple[int, int, str]] = []  # (first line, last line, the name written there)
    for f in o.funcs + [m for methods, _ in o.classes.values() for m in methods]:
        if id(f) not in kept and f.removable and f.body and "__all__" not in f.name:
            # a module-level function nothing kept names: the model looks a module function up
            # only by a name it reads (a call, a reference, an export call)
            # (a method the same way: the model and the rules look methods up by the names
            # they read, but for dunders, never removed; its lines become one string, so the
            # class keeps a statement)
            whole.append((f.start, f.end, f.is_method))
        elif id(f) not in kept and f.body:
            spans.append((f.body, f.end, True))
            if COMPACT_HEADERS and f.def_line and f.body > f.def_line:
                heads.append((f, "()"))
        elif id(f) in whole_init:
            continue
        elif id(f) in kept and f.init_values is not None and "__init__" not in names and f.def_line \
                and f.body > f.def_line and f.sig is not None and f.cls not in o.dup_classes:
            vals = _plain_init(f.init_values[1], names)
            if vals is not None:
                spans.append((f.body, f.end, True))
                heads.append((f, f.sig))
                if init_values is not None:
                    init_values[f.cls] = (f.init_values[0], vals, "whole")
                continue
        if id(f) in kept and f.drop:
            spans.extend((a, b, True) for a, b in f.drop)
        if id(f) in kept and f.shrink and "__init__" not in names:
            marked: set = set()
            if (f.init_marks is not None and id(f) not in whole_init and f.cls not in o.dup_classes
                    and init_values is not None and INIT_MARK not in text):
                vals: list = []
                for a, b, items in f.init_marks[1]:
                    facts = [(attr, value) for attr, value, always in items if always or attr in names]
                    if facts:  # (else each statement is written `...`: no fact)
                        marks.append((a, b, f"{INIT_MARK}{len(vals)}_{len(facts)}__"))
                        vals.extend(facts)
                        marked.update(sh[0] for sh in f.shrink if a <= sh[0] <= b)
                if vals:
                    init_values[f.cls] = (f.init_marks[0], tuple(vals), "marks")
            shrinks.extend(sh for sh in f.shrink if sh[0] not in marked)
        if (id(f) in kept and f.sig is not None and f.body > f.def_line > 0 and "__init__" not in names
                and f.name == "__init__"):
            # (an export-path function naming __init__ may call it: then its header stays)
            heads.append((f, f.sig))
    for i, (_, a, b) in enumerate(o.assigns):
        if i not in done_assign:
            whole.append((a, b, False))
        elif i in o.assign_short:
            shrinks.append((a, b, o.assign_short[i], None))
    if (not (spans or whole or shrinks or heads)
            or sum(b - a + 1 for a, b, _ in spans + whole) < _MIN_SAVED_FRACTION * len(lines)):
        return None
    if MERGE_REMOVED and len(whole) > 1:
        # removed definitions and assignments one after the other, only empty lines between
        # them, at the same indentation (the module's, or one class body's): one span, so one
        # string, where each would be a string (or empty lines) and the empty lines between
        # them 3 libcst nodes each (timm's model files end in tens of registered factories)
        whole.sort()
        merged = [list(whole[0])]
        for a, b, is_body in whole[1:]:
            last = merged[-1]
            if (last[2] == is_body and a > last[1] and _indent(lines[a - 1]) == _indent(lines[last[0] - 1])
                    and not any(lines[k].strip() for k in range(last[1], a - 1))):
                last[1] = max(last[1], b)
            else:
                merged.append([a, b, is_body])
        whole = [(a, b, is_body) for a, b, is_body in merged]
    spans.extend(whole)
    out = list(lines)
    dots: list[int] = []  # (0-based) lines where a `...` stands for what was removed
    strings: list[tuple[int, int]] = []  # lines of the strings standing for removed lines
    for a, b, is_body in spans:
        first = out[a - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        if is_body and (not indent or not first.strip()):
            continue
        _blank(out, a, b, lf_only)
        nl = "\r\n" if first.endswith("\r\n") else "\n"
        if COMPACT_HEADERS and b > a and (is_body or not indent):
            # the removed lines as one string statement spanning them (the statement stands
            # for the removed body or statement; at module level, for removed definitions):
            # libcst makes one token of it, where each blank line costs it an EmptyLine node
            # (~15% of the parse of timm's reduced files); the lines keep their numbers
            out[a - 1] = f'{indent if is_body else ""}"""{nl}'
            out[b - 1] = '"""' + out[b - 1]
            strings.append((a, b))
        elif is_body:
            out[a - 1] = f"{indent}...{nl}"
            dots.append(a - 1)
    for a, b, new, attr in shrinks:
        if attr is not None and attr not in names:
            # `self.x = <value the model reads only for its kind>` where no kept code outside
            # __init__ names x: no analysed function reads self.x (the rules that read
            # attributes no function uses look for torch constructors, never shortened here)
            new = "..."
        elif not new:
            continue
        first = out[a - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        if not first.strip():
            continue
        nl = "\r\n" if first.endswith("\r\n") else "\n"
        out[a - 1] = f"{indent}{new}{nl}"
        if new == "...":
            dots.append(a - 1)
        _blank(out, a + 1, b, lf_only)
    for a, b, name in marks:
        first = out[a - 1]
        if not first.strip():
            continue  # (never: the statement is on lines of its own, in a kept body)
        nl = "\r\n" if first.endswith("\r\n") else "\n"
        out[a - 1] = f"{_indent(first)}{name}{nl}"
        _blank(out, a + 1, b, lf_only)
    for f, sig in heads:
        line = out[f.def_line - 1]
        m = _DEF_HEAD.match(line)
        if m is None or m.group(2) != f.name or (sig == "()" and out[f.body - 1].strip() not in ("...", '"""')):
            continue  # (a body left as it was keeps its header)
        nl = "\r\n" if line.endswith("\r\n") else "\n"
        out[f.def_line - 1] = f"{m.group(1)}{f.name}{sig}:{nl}"
        _blank(out, f.def_line + 1, f.body - 1, lf_only)
    if COMPACT_HEADERS:
        # a `...` right after another at the same indentation (only blank or comment lines
        # between: the same block) says nothing more
        # (each `...` line is compared with the statement line before it, found by walking
        # back over blank and comment lines: the lines holding "..." are few)
        gen = set(dots)
        for i in [i for i, line in enumerate(out) if "..." in line]:
            line = out[i]
            if line.strip() != "...":
                continue
            j = i - 1
            while j >= 0:
                st = out[j].strip()
                if st and not st.startswith("#"):
                    break
                j -= 1
            if (j >= 0 and st == "..." and _indent(out[j]) == _indent(line)) or (
                    DROP_DOTS and i in gen and _has_sibling(out, i, j, gen)):
                out[i] = "\r\n" if line.endswith("\r\n") else ("\n" if line.endswith("\n") else "")
        if FOLD_INIT_BLANKS and code is not lines:
            _fold_blanks(out, lines, strings, [f for methods, _ in o.classes.values() for f in methods
                                               if f.name == "__init__" and id(f) in kept and f.def_line])
    return "".join(out)


#: a statement opening with one of these continues the one before it (or the brackets)
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b|[)\]}]")


def _fold_blanks(out: list[str], lines: list[str], strings: list[tuple[int, int]], inits: list) -> None:
    """In each kept ``__init__``, a run of at least 3 lines the reduction emptied (headers,
    removed statements, a `...` gone, the lines a shortened statement no longer needs)
    becomes one string statement spanning them, at the indentation of the next line of code:
    libcst builds 3 nodes for an empty line, ~7 for the string. Only lines emptied here
    (``out`` differs from the text: never a blank line inside a kept statement's brackets or
    string) and outside the strings already written; the next line of code starts a
    statement of the same or an enclosing block (not ``else:`` or a closing bracket), so the
    string is a statement there and every block keeps the statements it had."""
    mask = bytearray(len(out))
    for a, b in strings:
        mask[a - 1:b] = b"\x01" * (b - a + 1)
    n = len(out)
    for f in inits:
        i, end = f.def_line, min(f.end, n)  # (0-based: the lines after `def` to the last)
        while i < end:
            if mask[i] or out[i].strip() or out[i] == lines[i]:
                i += 1
                continue
            j = i
            while j < end and not mask[j] and not out[j].strip() and out[j] != lines[j]:
                j += 1
            if j - i >= 3:
                k = j
                while k < n and (not out[k].strip() or out[k].lstrip().startswith("#")):
                    k += 1
                if k < n and not _CONTINUES.match(out[k].lstrip()):
                    nl = "\r\n" if out[i].endswith("\r\n") else "\n"
                    last = out[j - 1]
                    out[i] = f'{_indent(out[k])}"""{nl}'
                    out[j - 1] = '"""' + last
            i = j


def _code_line(line: str) -> bool:
    st = line.strip()
    return bool(st) and st[0] != "#"


def _has_sibling(out: list[str], i: int, j: int, gen: set) -> bool:
    """Does another statement of its block stay beside the `...` on line ``i`` (0-based; ``j``:
    the line of code before it, -1 if none)? Yes when the line of code before it has the
    same indentation and ends a statement (no block header ending with ``:``; no string or
    comment on it, which could hide one), or when the next line of code past the `...` of
    ``gen`` (written here) has the same indentation (a statement of the same block: the
    `...` line is a whole logical line; never blanked itself, or it is an old `...` after
    one of those, which then stays). The block keeps a statement."""
    ind = _indent(out[i])
    if not ind:
        return False
    if j >= 0:
        prev = out[j]
        if (_indent(prev) == ind and not any(c in prev for c in "#'\"\\")
                and not prev.rstrip().endswith(":")):
            return True
    k = i + 1
    while k < len(out) and (not _code_line(out[k]) or k in gen and out[k].strip() == "..." and _indent(out[k]) == ind):
        k += 1
    return k < len(out) and _indent(out[k]) == ind


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _blank(out: list[str], a: int, b: int, lf_only: bool) -> None:
    """Lines a..b (1-based) of ``out`` emptied, their line breaks kept (``\\r\\n``, ``\\n``, or
    none: the last line, or a lone ``\\r``). ``lf_only``: the text holds no ``\\r``."""
    if a > b:
        return
    if lf_only and b <= len(out):
        last_bare = b == len(out) and not out[b - 1].endswith("\n")
        out[a - 1:b] = ["\n"] * (b - a + 1)
        if last_bare:
            out[b - 1] = ""
        return
    for ln in range(a, b + 1):
        src = out[ln - 1]
        out[ln - 1] = "\r\n" if src.endswith("\r\n") else ("\n" if src.endswith("\n") else "")


def _header_end(fn: ast.AST) -> int:
    """The last line of a def's signature (before its body)."""
    end = fn.lineno
    a = fn.args
    for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if p is not None:
            end = max(end, getattr(p, "end_lineno", end) or end)
    for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
        end = max(end, d.end_lineno or end)
    if fn.returns is not None:
        end = max(end, fn.returns.end_lineno or end)
    return end
