#!/usr/bin/env python3
"""List the command-line argument names of Megatron-LM's training entry point.

Usage: extract_args.py MEGATRON_SOURCE_DIR > megatron-args.txt

Reads megatron/training/arguments.py without importing it (it needs torch): every literal
'--name' it passes to add_argument, plus the arguments ArgumentGroupFactory generates from
the fields of config dataclasses (megatron/training/argument_utils.py: a field `foo_bar`
becomes --foo-bar; a bool field whose default is True becomes --no-foo-bar and
--disable-foo-bar; metadata "argparse_meta" {"arg_names": [...]} replaces the names; fields
in the factory's exclude list or with init=False are skipped). Base classes' fields count.
"""
import ast
import os
import sys

root = sys.argv[1]
args_py = os.path.join(root, "megatron/training/arguments.py")
tree = ast.parse(open(args_py).read())

names = set()
factories = []  # (class name, exclude set)
for node in ast.walk(tree):
    if isinstance(node, ast.Call):
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if fname == "add_argument":
            for a in node.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                    names.add(a.value)
        if fname == "ArgumentGroupFactory" and node.args and isinstance(node.args[0], ast.Name):
            exclude = set()
            for kw in node.keywords:
                if kw.arg == "exclude" and isinstance(kw.value, ast.List):
                    exclude = {e.value for e in kw.value.elts if isinstance(e, ast.Constant)}
            factories.append((node.args[0].id, exclude))

# Index every class definition under megatron/.
classes = {}
for d, _, files in os.walk(os.path.join(root, "megatron")):
    for fn in files:
        if fn.endswith(".py"):
            p = os.path.join(d, fn)
            try:
                t = ast.parse(open(p).read())
            except SyntaxError:
                continue
            for n in t.body:
                if isinstance(n, ast.ClassDef):
                    classes.setdefault(n.name, n)


def fields(cls_name, seen=()):
    """(name, annotation source, default node, keywords of field()) of a dataclass, bases first."""
    c = classes.get(cls_name)
    if c is None or cls_name in seen:
        return []
    out = []
    for b in c.bases:
        if isinstance(b, ast.Name):
            out += fields(b.id, seen + (cls_name,))
    for n in c.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            ann = ast.unparse(n.annotation)
            if ann.startswith("ClassVar"):
                continue
            out = [f for f in out if f[0] != n.target.id]
            out.append((n.target.id, ann, n.value))
    return out


def field_info(value):
    """(default node, init flag, argparse_meta arg_names or None) of a field's value."""
    init, arg_names, default = True, None, value
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field":
        default = None
        for kw in value.keywords:
            if kw.arg == "default":
                default = kw.value
            if kw.arg == "init" and isinstance(kw.value, ast.Constant):
                init = kw.value.value
            if kw.arg == "metadata" and isinstance(kw.value, ast.Dict):
                for k, v in zip(kw.value.keys, kw.value.values):
                    if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                        for k2, v2 in zip(v.keys, v.values):
                            if isinstance(k2, ast.Constant) and k2.value == "arg_names" and isinstance(v2, ast.List):
                                arg_names = [e.value for e in v2.elts if isinstance(e, ast.Constant)]
    return default, init, arg_names


for cls, exclude in factories:
    for name, ann, value in fields(cls):
        if name in exclude:
            continue
        default, init, arg_names = field_info(value)
        if not init:
            continue
        if arg_names:
            names.update(arg_names)
            continue
        flag = name.replace("_", "-")
        is_bool = ann in ("bool", "Optional[bool]", "bool | None")
        if is_bool and isinstance(default, ast.Constant) and default.value is True:
            names.add("--no-" + flag)
            names.add("--disable-" + flag)
        else:
            names.add("--" + flag)

for n in sorted(names):
    print(n)
