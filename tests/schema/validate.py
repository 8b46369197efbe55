#!/usr/bin/python3
"""Validates attn's files against the JSON Schemas in docs/schema/.

    validate.py SCHEMA FILE...                 every FILE must be valid
    validate.py --expect-invalid SCHEMA FILE...  every FILE must be rejected

SCHEMA is one of embeddings, weights, model, qkv, trace. Lines that start with // (as attn init
writes them) are dropped before parsing. Needs Debian's python3-jsonschema
(scripts/install-deps installs it).
"""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate.py: python3-jsonschema is missing: run scripts/install-deps")

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "schema"


def load(path):
    text = pathlib.Path(path).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return json.loads("\n".join(lines))


def main(argv):
    expect_invalid = argv[:1] == ["--expect-invalid"]
    if expect_invalid:
        argv = argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    store = {}
    for p in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(p.read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
        store[schema["$id"]] = schema
    schema = store[f"urn:attn:schema:{argv[0]}"]
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    failures = 0
    for path in argv[1:]:
        errors = sorted(validator.iter_errors(load(path)), key=lambda e: list(e.path))
        if expect_invalid:
            if errors:
                print(f"ok: {path} is rejected: {errors[0].message}")
            else:
                print(f"FAIL: {path} is accepted by the {argv[0]} schema, expected a rejection")
                failures += 1
        elif errors:
            failures += 1
            for e in errors[:5]:
                where = "/".join(str(x) for x in e.path) or "(top level)"
                print(f"FAIL: {path}: {where}: {e.message}")
        else:
            print(f"ok: {path} is a valid {argv[0]} file")
    print(f"{len(argv) - 1 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
