"""A provider's resource schemas read back from its cdktf prebuilt binding, where no published
`terraform providers schema -json` of that version exists (okta: see schemas/SOURCES.md). Run by
hand; the tests read only the kept result.

cdktf's provider generator writes, from the provider's published schema, one JavaScript class per
resource and per nested block in the binding's jsii bundle (`_jsii/*.jsii.tgz`): above every
attribute a comment `// <name> - computed: <bool>, optional: <bool>, required: <bool>`, and in
`synthesizeHclAttributes` each configurable attribute's kind (`isBlock`, `type`,
`storageClassType`). That is the schema, less what the generator drops: min/max items of blocks,
sensitivity, deprecation, and whether a nested object is a block or a nested attribute (plugin
SDKv2 providers such as okta have blocks only). tests/test_schema_stand_in.py reads the AWS and
Kubernetes bindings back the same way and compares them with their published schemas.

    python -m tests.schema_provider.from_binding BINDING.jsii.tgz TYPE [TYPE ...] > resources.json
"""

from __future__ import annotations

import json
import re
import sys
import tarfile
from typing import Any

GETTERS = {
    "getStringAttribute": "string",
    "getNumberAttribute": "number",
    "getBooleanAttribute": "bool",
    "getListAttribute": ["list", "string"],
    "getNumberListAttribute": ["list", "number"],
    "getStringMapAttribute": ["map", "string"],
    "getNumberMapAttribute": ["map", "number"],
    "getBooleanMapAttribute": ["map", "bool"],
}
STORAGE = {"string": "string", "number": "number", "boolean": "bool"}
COLLECTIONS = {"List": "list", "Map": "map"}


def _group(pattern: str, text: str) -> str:
    """The first group of `pattern` in `text`, which must match."""
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not found in the binding"
    return match.group(1)


def _classes(js: str) -> dict[str, str]:
    starts = [(m.group(1), m.start()) for m in re.finditer(r"^class (\w+) extends", js, re.M)]
    ends = [start for _, start in starts[1:]] + [len(js)]
    return {name: js[start:end] for (name, start), end in zip(starts, ends, strict=True)}


def _hcl_attributes(text: str) -> dict[str, dict]:
    """The `attrs` of a synthesizeHclAttributes method or a `...ToHclTerraform` function."""
    body = re.search(r"const attrs = \{(.*?)\n\s{4,8}\};", text, re.S)
    found = {}
    for name, kind in re.findall(r"^\s+([\w-]+): \{(.*?)\},?$", body.group(1) if body else "", re.M | re.S):
        found[name] = {
            "isBlock": "isBlock: true" in kind,
            "type": _group(r'type: "(\w+)"', kind),
            "storage": _group(r'storageClassType: "(\w+)"', kind),
        }
    return found


def _struct_name(storage: str) -> str:
    return re.sub(r"(List|Map|OutputReference)$", "", storage)


#: What a binding types as any value: Terraform's dynamic type (kubernetes_manifest's `manifest`
#: and `object`, which the published schema types "dynamic").
DYNAMIC_STORAGE = ("anyMap",)


def _cty(kind: dict) -> object:
    storage, collection = kind["storage"], kind["type"]
    if storage in DYNAMIC_STORAGE:
        return "dynamic"
    for suffix, default_collection in COLLECTIONS.items():
        if storage.endswith(suffix) and storage[: -len(suffix)] in STORAGE:
            element = STORAGE[storage[: -len(suffix)]]
            return [collection if collection in ("list", "set", "map") else default_collection, element]
    return STORAGE[storage]


def _snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", camel).lower()


class Binding:
    def __init__(self, js: str, assembly: dict, module: str) -> None:
        self.js = js
        self.classes = _classes(js)
        self.assembly = assembly
        self.module = module

    def _required(self, interface: str) -> set[str]:
        """The snake names of a config struct's properties that are not optional."""
        for fqn, spec in self.assembly["types"].items():
            if fqn.endswith(f".{self.module}.{interface}"):
                return {_snake(p["name"]) for p in spec.get("properties", []) if not p.get("optional")}
        return set()

    def _one_object(self, interface: str) -> set[str]:
        """The snake names of a config struct's properties that take one object, not a list: the
        generator's form of a block of max_items 1 (its HCL kind says "list" either way)."""
        for fqn, spec in self.assembly["types"].items():
            if fqn.endswith(f".{self.module}.{interface}"):
                return {_snake(p["name"]) for p in spec.get("properties", []) if "fqn" in p.get("type", {})}
        return set()

    def _struct_block(self, struct: str) -> dict:
        function = re.search(
            rf"function {struct[0].lower()}{struct[1:]}ToHclTerraform\(struct\) \{{(.*?)\n}}", self.js, re.S
        )
        return self.block(
            self.classes.get(f"{struct}OutputReference", ""), function.group(1) if function else "", struct
        )

    def block(self, class_text: str, hcl_text: str, interface: str) -> dict:
        kinds = _hcl_attributes(hcl_text)
        required = self._required(interface)
        one_object = self._one_object(interface)
        block: dict = {"attributes": {}, "block_types": {}}
        for name, kind in kinds.items():
            if kind["isBlock"]:
                nesting = {"list": "list", "set": "set", "map": "map", "struct": "single"}[kind["type"]]
                block["block_types"][name] = {
                    "nesting_mode": nesting,
                    "block": self._struct_block(_struct_name(kind["storage"])),
                }
                if nesting == "list" and name in one_object:
                    block["block_types"][name]["max_items"] = 1
            else:
                flag = "required" if name in required else "optional"
                block["attributes"][name] = {"type": _cty(kind), flag: True}
        # Attributes only read (computed), not set: a getter with no config property behind it.
        for getter, name in re.findall(
            r"get \w+\(\) \{\s*return (?:cdkt[fn]\.Fn\.\w+\()?this\.(get\w+Attribute)\('([\w-]+)'\)", class_text
        ):
            if name not in kinds and getter in GETTERS:
                attribute_type = GETTERS[getter]
                block["attributes"][name] = {"type": attribute_type, "computed": True}
        computed_maps = re.findall(
            r"new cdkt[fn]\.(String|Number|Boolean|BooleanList)Map\(this, \"([\w-]+)\"", class_text
        )
        for kind, name in computed_maps:
            if name not in kinds:
                element: Any = {"String": "string", "Number": "number", "Boolean": "bool"}.get(kind, ["list", "bool"])
                block["attributes"][name] = {"type": ["map", element], "computed": True}
        for struct, collection, name in re.findall(
            r"new (\w+?)(List|OutputReference|Map)\(this, \"([\w-]+)\"", class_text
        ):
            if name not in kinds:
                nested = self._struct_block(struct)
                struct_type: list = ["object", {n: a["type"] for n, a in nested["attributes"].items()}]
                attribute_type = {"List": ["list", struct_type], "Map": ["map", struct_type]}.get(
                    collection, struct_type
                )
                block["attributes"][name] = {"type": attribute_type, "computed": True}
        if not block["block_types"]:
            del block["block_types"]
        return block

    def resource(self, type_name: str) -> dict:
        for name, text in self.classes.items():
            # cdktf's bundles set it after the class; cdktn's (TypeScript 5.9) as a static field in it.
            assigned = rf'^{name}\.tfResourceType = "{re.escape(type_name)}";'
            if re.search(assigned, self.js, re.M) or f'static tfResourceType = "{type_name}";' in text:
                return {"version": 0, "block": self.block(text, text, f"{name}Config")}
        raise KeyError(type_name)


def read_binding(tgz: str, folder: str) -> Binding:
    with tarfile.open(tgz) as archive:
        js_file, assembly_file = (
            archive.extractfile(f"package/lib/{folder}/index.js"),
            archive.extractfile("package/.jsii"),
        )
        assert js_file is not None and assembly_file is not None, f"{tgz} is not a jsii package"
        js = js_file.read().decode()
        assembly = json.load(assembly_file)
    module = re.sub(r"-(\w)", lambda m: m.group(1).upper(), folder)
    return Binding(js, assembly, module)


def main(argv: list[str]) -> None:
    tgz, *types = argv
    schemas = {}
    for type_name in types:
        kind, _, name = type_name.partition(":")
        folder = name.split("_", 1)[1].replace("_", "-") if kind == "resource" else "data-" + name.replace("_", "-")
        schemas[name] = read_binding(tgz, folder).resource(name)
    json.dump(schemas, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
