"""Prints the wire shape of a protobuf file descriptor as canonical JSON.

Usage: descriptor.py MODULE   (e.g. a2a.types.a2a_pb2, the official Python
SDK's compiled a2a.proto)

The shape is what decides the wire: the package, every message's fields
(number, name, type, label, oneof, proto3 optional; map fields as
map<key,value>), every enum's values and every service's methods. Options,
comments and imports are left out: they do not change a byte on the wire.
The proto descriptor test prints our generated proto the same way.
"""

import importlib
import json
import sys

from google.protobuf import descriptor_pb2

TYPES = {v: k[len("TYPE_"):].lower() for k, v in descriptor_pb2.FieldDescriptorProto.Type.items()}
LABELS = {v: k[len("LABEL_"):].lower() for k, v in descriptor_pb2.FieldDescriptorProto.Label.items()}


def field_type(field, entries):
    if field.type_name in entries:
        key, value = entries[field.type_name]
        return f"map<{field_type(key, entries)},{field_type(value, entries)}>"
    return field.type_name or TYPES[field.type]


def message(proto, prefix, out, entries):
    name = f"{prefix}.{proto.name}"
    for nested in proto.nested_type:
        if nested.options.map_entry:
            entries[f"{name}.{nested.name}"] = (nested.field[0], nested.field[1])
    for nested in proto.nested_type:
        if not nested.options.map_entry:
            message(nested, name, out, entries)
    fields = []
    for field in sorted(proto.field, key=lambda f: f.number):
        fields.append({
            "number": field.number,
            "name": field.name,
            "type": field_type(field, entries),
            "label": "map" if field.type_name in entries else LABELS[field.label],
            "oneof": proto.oneof_decl[field.oneof_index].name
            if field.HasField("oneof_index") and not field.proto3_optional else None,
            "proto3Optional": field.proto3_optional,
        })
    out[name] = fields


def shape(file):
    prefix = f".{file.package}"
    messages, entries = {}, {}
    for proto in file.message_type:
        message(proto, prefix, messages, entries)
    enums = {f"{prefix}.{e.name}": {v.name: v.number for v in e.value} for e in file.enum_type}
    services = {
        f"{prefix}.{s.name}": {
            m.name: {"input": m.input_type, "output": m.output_type,
                     "clientStreaming": m.client_streaming, "serverStreaming": m.server_streaming}
            for m in s.method
        }
        for s in file.service
    }
    return {"package": file.package, "messages": messages, "enums": enums, "services": services}


def main():
    module = importlib.import_module(sys.argv[1])
    file = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(file)
    print(json.dumps(shape(file), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
