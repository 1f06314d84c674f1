"""Parameter values between Python and ``vernier.v1.ParameterValue``, typed
by a study's parameter specs."""

from __future__ import annotations

import numbers
from typing import Dict, Iterable, List, Mapping, Union

from vernier._stubs import study_pb2
from vernier.errors import InvalidArgument

ParameterValue = Union[float, int, str]
"""A parameter's value: float for DOUBLE, int for INTEGER, str for
CATEGORICAL; DISCRETE values are int when every allowed value is a whole
number (batch sizes, layer counts) and float otherwise."""


def flatten_specs(specs: Iterable[study_pb2.ParameterSpec]) -> List[study_pb2.ParameterSpec]:
    """Every parameter of a search space, conditional ones included:
    depth-first, each parent before its children (the server's order)."""
    flat: List[study_pb2.ParameterSpec] = []
    for spec in specs:
        flat.append(spec)
        flat.extend(flatten_specs(child.parameter_spec
                                  for child in spec.conditional_parameter_specs))
    return flat


class ParameterCodec:
    """Encodes and decodes the values of one study's parameters."""

    def __init__(self, specs: Iterable[study_pb2.ParameterSpec]) -> None:
        self._specs: Dict[str, study_pb2.ParameterSpec] = {
            spec.parameter_name: spec for spec in flatten_specs(specs)}

    def decode(self, values: Iterable[study_pb2.ParameterValue]) -> Dict[str, ParameterValue]:
        """Name to typed value."""
        decoded: Dict[str, ParameterValue] = {}
        for value in values:
            kind = value.WhichOneof("value")
            if kind == "int_value":
                decoded[value.parameter_name] = int(value.int_value)
            elif kind == "string_value":
                decoded[value.parameter_name] = value.string_value
            else:
                number = float(value.double_value)
                spec = self._specs.get(value.parameter_name)
                if (spec is not None and spec.type == study_pb2.ParameterSpec.DISCRETE
                        and all(float(v).is_integer() for v in spec.discrete_values)):
                    decoded[value.parameter_name] = int(number)
                else:
                    decoded[value.parameter_name] = number
        return decoded

    def encode(self, parameters: Mapping[str, ParameterValue]
               ) -> List[study_pb2.ParameterValue]:
        """The protos for name-to-value pairs; the server checks names and
        ranges, this checks that each value has its parameter's type.

        Raises:
            InvalidArgument: a value of the wrong type; ``field`` names it.
        """
        encoded = []
        for name, value in parameters.items():
            spec = self._specs.get(name)
            kind = spec.type if spec is not None else None
            proto = study_pb2.ParameterValue(parameter_name=name)
            if isinstance(value, bool):
                raise InvalidArgument(f'parameter "{name}": expected a number or string, got '
                                      f"{value!r}", field=name)
            if kind == study_pb2.ParameterSpec.CATEGORICAL or isinstance(value, str):
                if not isinstance(value, str):
                    raise InvalidArgument(
                        f'parameter "{name}" is CATEGORICAL: expected a string, got {value!r}',
                        field=name)
                proto.string_value = value
            elif kind == study_pb2.ParameterSpec.INTEGER or (
                    kind is None and isinstance(value, numbers.Integral)):
                if not isinstance(value, numbers.Integral) and not float(value).is_integer():
                    raise InvalidArgument(
                        f'parameter "{name}" is INTEGER: expected a whole number, got {value!r}',
                        field=name)
                proto.int_value = int(value)
            elif isinstance(value, numbers.Real):
                proto.double_value = float(value)
            else:
                raise InvalidArgument(
                    f'parameter "{name}": expected a number or string, got {value!r}', field=name)
            encoded.append(proto)
        return encoded
