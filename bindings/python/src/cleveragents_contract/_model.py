"""The base of every generated model, and the adapters that let pydantic
read and write the official SDK's protobuf messages as ProtoJSON."""

from __future__ import annotations

from typing import Any, ClassVar

from google.protobuf import json_format
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.message import Message
from pydantic import (
    BaseModel,
    ConfigDict,
    GetCoreSchemaHandler,
    JsonValue,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import core_schema
from typing_extensions import Self

__all__ = ["Model", "ProtoEnum", "ProtoMessage", "encode"]


class Model(BaseModel):
    """A definition of the extension schemas.

    Fields are snake_case with the camelCase wire name as alias; both names are
    accepted on input. Members a definition does not name are ignored on input,
    as the protocol asks of an older peer reading a newer one's answer.
    """

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
    )

    # Groups of fields of which exactly one must be present (a one-of).
    one_of: ClassVar[tuple[tuple[str, ...], ...]] = ()
    # Fields holding SDK protobuf messages (or lists of them).
    proto_fields: ClassVar[tuple[str, ...]] = ()

    # The JSON each proto field was read from, with the fingerprint of the
    # message(s) read: written back as it came while the value is unchanged.
    # ProtoJSON would re-format it (a `.000` timestamp, a `false`, a `1` in a
    # Struct), and a document carrying checksums (a session export) must
    # travel byte for byte.
    _wire: dict[str, tuple[object, JsonValue]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_wire(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        model = handler(data)
        if not cls.proto_fields or not isinstance(data, dict):
            return model
        for name in cls.proto_fields:
            field = cls.model_fields[name]
            alias = field.validation_alias if isinstance(field.validation_alias, str) else name
            raw = data.get(alias, data.get(name))
            value = getattr(model, name)
            if value is not None and _exact(raw, value):
                model._wire[name] = (_fingerprint(value), raw)
        return model

    @model_serializer(mode="wrap")
    def _write_wire(self, handler: SerializerFunctionWrapHandler) -> Any:
        written = handler(self)
        if not self._wire or not isinstance(written, dict):
            return written
        for name, (fingerprint, raw) in self._wire.items():
            alias = type(self).model_fields[name].serialization_alias or name
            key = alias if alias in written else name
            if key in written and _fingerprint(getattr(self, name)) == fingerprint:
                written[key] = raw
        return written

    @model_validator(mode="after")
    def _exactly_one(self) -> Model:
        if self.one_of:
            present = [
                group
                for group in self.one_of
                if all(getattr(self, field) is not None for field in group)
            ]
            if len(present) != 1:
                names = " | ".join("+".join(group) for group in self.one_of)
                raise ValueError(f"exactly one of {names} must be set")
        return self

    def to_wire(self) -> dict[str, JsonValue]:
        """The JSON object this model is on the wire (absent fields left out)."""
        return encode(self)


def _fingerprint(value: object) -> object:
    """What identifies a message's content (a list's: its messages')."""
    if isinstance(value, Message):
        return value.SerializeToString(deterministic=True)
    if isinstance(value, list):
        return tuple(_fingerprint(item) for item in value)
    return None


def _exact(raw: object, value: object) -> bool:
    """True when `raw` is JSON the message(s) `value` were read from and names
    nothing the message does not define (members it ignored are not echoed)."""
    if isinstance(value, Message):
        if not isinstance(raw, dict):
            return False
        try:
            json_format.ParseDict(raw, type(value)())
        except json_format.ParseError:
            return False
        return True
    if isinstance(value, list):
        return (
            isinstance(raw, list)
            and len(raw) == len(value)
            and all(_exact(r, v) for r, v in zip(raw, value, strict=True))
        )
    return False


def encode(model: BaseModel) -> dict[str, JsonValue]:
    """The wire JSON of a model: camelCase names, `None` fields left out."""
    dumped: dict[str, JsonValue] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class ProtoMessage:
    """Marks a field holding an SDK protobuf message: read from its ProtoJSON
    (or taken as it is when already a message), written as ProtoJSON."""

    def __init__(self, message: type[Message]) -> None:
        self.message = message

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        message = self.message

        def read(value: object) -> Message:
            if isinstance(value, message):
                return value
            if not isinstance(value, dict):
                raise ValueError(f"a {message.__name__} is a JSON object")
            try:
                # Unknown members pass, as for the generated models.
                return json_format.ParseDict(value, message(), ignore_unknown_fields=True)
            except json_format.ParseError as error:
                raise ValueError(f"not a valid {message.__name__}: {error}") from error

        def write(value: Message) -> dict[str, Any]:
            return json_format.MessageToDict(value)

        return core_schema.no_info_plain_validator_function(
            read, serialization=core_schema.plain_serializer_function_ser_schema(write)
        )


class ProtoEnum:
    """Marks a field holding an SDK protobuf enum: its wire form is the value's
    name (``TASK_STATE_COMPLETED``), its Python form the enum's number."""

    def __init__(self, enum: EnumTypeWrapper) -> None:
        self.enum = enum

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        enum = self.enum

        def read(value: object) -> int:
            if isinstance(value, bool):
                raise ValueError("an enum value is a name or a number")
            if isinstance(value, int):
                enum.Name(value)
                return value
            if isinstance(value, str):
                try:
                    return int(enum.Value(value))
                except ValueError as error:
                    raise ValueError(f"unknown enum value {value!r}") from error
            raise ValueError("an enum value is a name or a number")

        def write(value: int) -> str:
            return str(enum.Name(value))

        return core_schema.no_info_plain_validator_function(
            read, serialization=core_schema.plain_serializer_function_ser_schema(write)
        )
