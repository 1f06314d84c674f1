"""Study specs from the YAML ``hyperparameters:`` vocabulary.

:func:`study_spec_from` turns a Python mapping, or a YAML file, written in AI
Platform's ``hyperparameters:`` vocabulary (``goal``,
``hyperparameterMetricTag``, ``params`` with ``parameterName``, ``type``,
``minValue``...; see docs/yaml-reference.md) into the ``vernier.v1.StudySpec``
the server takes. The rules are those of the C++ reader
(tuner/config/training_input_parser.cc, hyperparameter_validator.cc and
study_spec_builder.cc), so a spec that passes here passes there; the server
checks again. Every problem raises :class:`vernier.InvalidArgument` whose
``field`` is the path of the offending field in the YAML's own names
(``params[1].maxValue``) and whose message starts with that path, preceded by
``FILE:LINE:COLUMN:`` when the spec came from a file.

One difference from a job's YAML: a study created from Python is driven by
its caller, so a ``maxTrials`` or ``maxParallelTrials`` left out means "no
limit" rather than AI Platform's default of 1.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import yaml

from vernier.errors import InvalidArgument, NotFound
from vernier._stubs import study_pb2

SpecSource = Union[Mapping[str, Any], str, "os.PathLike[str]", study_pb2.StudySpec]

DEFAULT_METRIC_TAG = "training/hptuning/metric"
MAX_DISCRETE_VALUES = 1000
MAX_JOB_ID_LENGTH = 128
# Doubles hold every integer up to 2^53 exactly; INTEGER bounds beyond that
# would change when suggested values are rounded.
LARGEST_EXACT_INTEGER = 9007199254740992.0
INT32_RANGE = (-(2**31), 2**31 - 1)
INT64_RANGE = (-(2**63), 2**63 - 1)

GOALS = ("MAXIMIZE", "MINIMIZE")
ALGORITHMS = (
    "ALGORITHM_UNSPECIFIED",
    "GRID_SEARCH",
    "RANDOM_SEARCH",
    "QUASI_RANDOM_SEARCH",
    "GAUSSIAN_PROCESS_BANDIT",
)
PARAMETER_TYPES = ("DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE")
SCALE_TYPES = ("NONE", "UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")
EARLY_STOPPING_POLICIES = ("POLICY_UNSPECIFIED", "MEDIAN_STOPPING", "ASHA")
LOG_SCALES = ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")

# Keys of trainingInput that describe how a job runs; a study ignores them.
_TRAINING_INPUT_KEYS = (
    "scaleTier",
    "masterType",
    "masterConfig",
    "workerType",
    "workerCount",
    "workerConfig",
    "parameterServerType",
    "parameterServerCount",
    "parameterServerConfig",
    "evaluatorType",
    "evaluatorCount",
    "evaluatorConfig",
    "useChiefInTfConfig",
    "hyperparameters",
    "args",
    "jobDir",
    "region",
    "runtimeVersion",
    "pythonVersion",
)

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE_TEXT = re.compile(r"[+-]?(?:\.inf|inf|infinity|\.nan|nan)", re.IGNORECASE)
_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_JOB_ID = re.compile(r"[A-Za-z0-9_]*")
_YAML_NULLS = ("", "~", "null", "Null", "NULL")
_YAML_BOOLEANS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
                  "FALSE": False}


@dataclass(frozen=True)
class _YamlScalar:
    """A scalar as written in a YAML file: the C++ reader interprets the text
    by the field it lands in, and so does this one."""

    text: str
    quoted: bool

    @property
    def is_null(self) -> bool:
        return not self.quoted and self.text in _YAML_NULLS


class _Location:
    """Where each field of a spec stands, to start error messages with.

    For a mapping given in Python the location is the field path alone; for a
    file it is ``FILE:LINE:COLUMN: PATH``, the line and column those of the
    field's key, list element or value (1-based, as the C++ reader prints them).
    """

    def __init__(self, file_name: Optional[str] = None) -> None:
        self.file_name = file_name
        self.key_marks: Dict[str, Tuple[int, int]] = {}
        self.value_marks: Dict[str, Tuple[int, int]] = {}

    def where(self, path: str, at_value: bool = False) -> str:
        if self.file_name is None:
            return path
        mark = self.value_marks.get(path) if at_value else None
        known = path
        while mark is None:
            mark = self.key_marks.get(known)
            if mark is not None or not known:
                break
            known = _parent_path(known)
        line, column = mark if mark is not None else (0, 0)
        prefix = f"{self.file_name}:{line + 1}:{column + 1}"
        return f"{prefix}: {path}" if path else prefix

    def error(self, path: str, problem: str, at_value: bool = False) -> InvalidArgument:
        where = self.where(path, at_value)
        return InvalidArgument(f"{where}: {problem}" if where else problem, field=path)


def _parent_path(path: str) -> str:
    if path.endswith("]"):
        return path[: path.rfind("[")]
    dot = path.rfind(".")
    return path[:dot] if dot >= 0 else ""


def _child(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def format_number(value: float) -> str:
    """Shortest text that reads back as the same double, as C++ prints it:
    ``1`` rather than ``1.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _describe(value: Any) -> str:
    if isinstance(value, _YamlScalar):
        return "nothing" if value.is_null else f'"{value.text}"'
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return repr(value)


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance, ignoring case (a swap of two
    neighbours counts once), as tuner/config/closest_match.cc computes it."""
    a, b = a.lower(), b.lower()
    before_previous = [0] * (len(b) + 1)
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            same = a[i - 1] == b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if same else 1))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before_previous[j - 2] + 1)
        before_previous, previous = previous, current
    return previous[len(b)]


def closest_match(word: str, candidates: Sequence[str]) -> Optional[str]:
    """The candidate nearest to a misspelt key, if one is within a third of
    its length."""
    best: Optional[str] = None
    best_distance = max(1, len(word) // 3) + 1
    for candidate in candidates:
        distance = edit_distance(word, candidate)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


Reader = Callable[[Any, str], Any]


class _SpecReader:
    """Reads one ``hyperparameters:`` mapping into a StudySpec, field by field,
    with the C++ reader's rules and messages."""

    def __init__(self, location: _Location) -> None:
        self.loc = location

    # Scalars -------------------------------------------------------------

    def _text(self, value: Any, path: str, expected: str) -> Union[str, Any]:
        """The text of a YAML scalar; Python values pass through."""
        if isinstance(value, _YamlScalar):
            if value.is_null:
                raise self.loc.error(path, f"expected {expected}, got nothing")
            return value.text
        if value is None:
            raise self.loc.error(path, f"expected {expected}, got nothing", at_value=True)
        if isinstance(value, (Mapping, list, tuple)):
            raise self.loc.error(path, f"expected {expected}, got {_describe(value)}", True)
        return value

    def string(self, value: Any, path: str) -> str:
        text = self._text(value, path, "a string")
        if not isinstance(text, str):
            raise self.loc.error(path, f"expected a string, got {_describe(text)}", True)
        return text

    def integer(self, value: Any, path: str, bounds: Tuple[int, int]) -> int:
        text = self._text(value, path, "an integer")
        if isinstance(text, str):
            if not _INTEGER_TEXT.fullmatch(text):
                raise self.loc.error(path, f'expected an integer, got "{text}"', True)
            number = int(text)
        elif isinstance(text, numbers.Integral) and not isinstance(text, bool):
            number = int(text)
        else:
            raise self.loc.error(path, f"expected an integer, got {_describe(text)}", True)
        low, high = bounds
        if not low <= number <= high:
            raise self.loc.error(
                path, f'expected an integer in [{low}, {high}], got "{number}"', True)
        return number

    def double(self, value: Any, path: str) -> float:
        text = self._text(value, path, "a number")
        if isinstance(text, str):
            if _NON_FINITE_TEXT.fullmatch(text):
                raise self.loc.error(path, f'expected a finite number, got "{text}"', True)
            if not _NUMBER_TEXT.fullmatch(text):
                raise self.loc.error(path, f'expected a number, got "{text}"', True)
            number = float(text)
            if not math.isfinite(number):
                raise self.loc.error(
                    path, f'number "{text}" is out of the range of a double', True)
            return number
        if isinstance(text, numbers.Real) and not isinstance(text, bool):
            number = float(text)
            if not math.isfinite(number):
                raise self.loc.error(
                    path, f"expected a finite number, got {format_number(number)}", True)
            return number
        raise self.loc.error(path, f"expected a number, got {_describe(text)}", True)

    def boolean(self, value: Any, path: str) -> bool:
        if isinstance(value, _YamlScalar) and value.quoted:
            raise self.loc.error(
                path, f'expected true or false, got the quoted string "{value.text}"', True)
        text = self._text(value, path, "true or false")
        if isinstance(text, bool):
            return text
        if isinstance(value, _YamlScalar) and text in _YAML_BOOLEANS:
            return _YAML_BOOLEANS[text]
        raise self.loc.error(path, f"expected true or false, got {_describe(text)}", True)

    def enum(self, value: Any, path: str, names: Sequence[str], what: str) -> str:
        text = self._text(value, path, f"a {what}")
        if not isinstance(text, str) or text not in names:
            shown = f'"{text}"' if isinstance(text, str) else _describe(text)
            raise self.loc.error(
                path, f"unknown {what} {shown}; allowed: {', '.join(names)}", True)
        return text

    # Containers ----------------------------------------------------------

    def mapping(self, value: Any, path: str, readers: Dict[str, Reader]) -> None:
        if not isinstance(value, Mapping):
            raise self.loc.error(path, f"expected a mapping, got {_describe(value)}", True)
        for key, item in value.items():
            if not isinstance(key, str):
                raise self.loc.error(path, f"keys must be plain names, got {_describe(key)}")
            key_path = _child(path, key)
            reader = readers.get(key)
            if reader is None:
                allowed = list(readers)
                match = closest_match(key, allowed)
                if match is not None:
                    raise self.loc.error(
                        key_path, f'unknown key "{key}"; did you mean "{match}"?')
                raise self.loc.error(
                    key_path, f'unknown key "{key}"; allowed: {", ".join(allowed)}')
            reader(item, key_path)

    def sequence(self, value: Any, path: str, read_element: Reader) -> None:
        if isinstance(value, (str, bytes, Mapping, _YamlScalar)) or not isinstance(
                value, (list, tuple)):
            raise self.loc.error(path, f"expected a list, got {_describe(value)}", True)
        for index, element in enumerate(value):
            read_element(element, f"{path}[{index}]")

    # The hyperparameters block -------------------------------------------

    def hyperparameters(self, value: Any, path: str) -> study_pb2.StudySpec:
        fields: Dict[str, Any] = {}
        params: List[Dict[str, Any]] = []
        early: Dict[str, Any] = {}

        def store(name: str, read: Callable[[Any, str], Any]) -> Reader:
            def reader(item: Any, item_path: str) -> None:
                fields[name] = read(item, item_path)
            return reader

        def read_params(item: Any, item_path: str) -> None:
            self.sequence(item, item_path, lambda element, element_path: params.append(
                self.parameter(element, element_path)))

        def read_early_stopping(item: Any, item_path: str) -> None:
            def keep(name: str, read: Callable[[Any, str], Any]) -> Reader:
                def reader(inner: Any, inner_path: str) -> None:
                    early[name] = read(inner, inner_path)
                return reader
            early["written"] = True
            self.mapping(item, item_path, {
                "policy": keep("policy", lambda v, p: self.enum(
                    v, p, EARLY_STOPPING_POLICIES, "early stopping policy")),
                "minTrials": keep("minTrials", lambda v, p: self.integer(v, p, INT32_RANGE)),
                "startStep": keep("startStep", lambda v, p: self.integer(v, p, INT64_RANGE)),
            })

        self.mapping(value, path, {
            "goal": store("goal", lambda v, p: self.enum(v, p, GOALS, "goal")),
            "hyperparameterMetricTag": store("hyperparameterMetricTag", self.string),
            "maxTrials": store("maxTrials", lambda v, p: self.integer(v, p, INT32_RANGE)),
            "maxParallelTrials": store(
                "maxParallelTrials", lambda v, p: self.integer(v, p, INT32_RANGE)),
            "maxFailedTrials": store(
                "maxFailedTrials", lambda v, p: self.integer(v, p, INT32_RANGE)),
            "enableTrialEarlyStopping": store("enableTrialEarlyStopping", self.boolean),
            "resumePreviousJobId": store("resumePreviousJobId", self.string),
            "algorithm": store("algorithm", lambda v, p: self.enum(v, p, ALGORITHMS, "algorithm")),
            "params": read_params,
            "earlyStopping": read_early_stopping,
        })
        return self._build(fields, params, early, path)

    def parameter(self, value: Any, path: str) -> Dict[str, Any]:
        param: Dict[str, Any] = {"_path": path}

        def store(name: str, read: Callable[[Any, str], Any]) -> Reader:
            def reader(item: Any, item_path: str) -> None:
                param[name] = read(item, item_path)
            return reader

        def values(name: str, read: Callable[[Any, str], Any]) -> Reader:
            def reader(item: Any, item_path: str) -> None:
                collected: List[Any] = []
                self.sequence(item, item_path,
                              lambda element, element_path: collected.append(
                                  read(element, element_path)))
                param[name] = collected
            return reader

        self.mapping(value, path, {
            "parameterName": store("parameterName", self.string),
            "type": store("type", lambda v, p: self.enum(v, p, PARAMETER_TYPES, "parameter type")),
            "minValue": store("minValue", self.double),
            "maxValue": store("maxValue", self.double),
            "scaleType": store("scaleType", lambda v, p: self.enum(v, p, SCALE_TYPES, "scale type")),
            "categoricalValues": values("categoricalValues", self.string),
            "discreteValues": values("discreteValues", self.double),
        })
        if param.get("type") in ("DOUBLE", "INTEGER"):
            for bound in ("minValue", "maxValue"):
                if bound not in param:
                    raise self.loc.error(
                        _child(path, bound),
                        f'{param["type"]} parameter "{param.get("parameterName", "")}" '
                        f"needs {bound}")
        return param

    # The rules over the whole block (hyperparameter_validator.cc) ----------

    def _build(self, fields: Dict[str, Any], params: List[Dict[str, Any]],
               early: Dict[str, Any], path: str) -> study_pb2.StudySpec:
        def at(key: str) -> str:
            return _child(path, key)

        tag = fields.get("hyperparameterMetricTag", DEFAULT_METRIC_TAG)
        if not tag:
            raise self.loc.error(at("hyperparameterMetricTag"),
                                 "the metric tag is empty; it names the metric the trainer reports")
        max_trials = fields.get("maxTrials")
        if max_trials is not None and max_trials < 1:
            raise self.loc.error(at("maxTrials"), f"must be at least 1, got {max_trials}")
        max_parallel = fields.get("maxParallelTrials")
        if max_parallel is not None and max_parallel < 1:
            raise self.loc.error(at("maxParallelTrials"), f"must be at least 1, got {max_parallel}")
        if max_parallel is not None and max_trials is not None and max_parallel > max_trials:
            raise self.loc.error(
                at("maxParallelTrials"),
                f"must not exceed the maximum number of trials ({max_trials}), got {max_parallel}")
        max_failed = fields.get("maxFailedTrials", 0)
        if max_failed < 0:
            raise self.loc.error(at("maxFailedTrials"), f"must not be negative, got {max_failed}")
        resume = fields.get("resumePreviousJobId", "")
        if resume:
            problem = job_id_problem(resume)
            if problem:
                raise self.loc.error(at("resumePreviousJobId"), problem)
        early_path = at("earlyStopping")
        for key in ("minTrials", "startStep"):
            if early.get(key, 0) < 0:
                raise self.loc.error(_child(early_path, key),
                                     f"must not be negative, got {early[key]}")
        enabled = fields.get("enableTrialEarlyStopping", False)
        # Stricter than the C++ check of non-default values: a block that is
        # written but switched off is a mistake whatever it holds.
        if early.get("written") and not enabled:
            raise self.loc.error(
                early_path,
                "is set but trial early stopping is not enabled; enable it or remove these settings")
        algorithm = fields.get("algorithm", "ALGORITHM_UNSPECIFIED")
        self._validate_parameters(params, at("params"), algorithm)

        spec = study_pb2.StudySpec()
        for param in params:
            spec.parameters.append(_parameter_proto(param))
        metric = spec.metrics.add()
        metric.metric_id = tag
        metric.goal = study_pb2.MetricSpec.Goal.Value(fields.get("goal", "MAXIMIZE"))
        spec.algorithm = study_pb2.Algorithm.Value(algorithm)
        spec.max_trials = max_trials or 0
        spec.max_parallel_trials = max_parallel or 0
        if max_failed > 0:
            spec.max_failed_trials = max_failed
        elif max_trials:
            spec.max_failed_trials = max(1, max_trials // 2)
        spec.early_stopping.enabled = enabled
        spec.early_stopping.policy = study_pb2.EarlyStoppingSpec.Policy.Value(
            early.get("policy", "POLICY_UNSPECIFIED"))
        spec.early_stopping.min_trials = early.get("minTrials", 0)
        spec.early_stopping.start_step = early.get("startStep", 0)
        return spec

    def _validate_parameters(self, params: List[Dict[str, Any]], list_path: str,
                             algorithm: str) -> None:
        if not params:
            raise self.loc.error(list_path, "at least one parameter is required")
        first_index: Dict[str, int] = {}
        for index, param in enumerate(params):
            self._validate_parameter(param, algorithm)
            name = param["parameterName"]
            if name in first_index:
                raise self.loc.error(
                    _child(param["_path"], "parameterName"),
                    f'duplicate parameter name "{name}" (first at index {first_index[name]})')
            first_index[name] = index

    def _validate_parameter(self, param: Dict[str, Any], algorithm: str) -> None:
        path = param["_path"]
        name = param.get("parameterName", "")
        name_path = _child(path, "parameterName")
        if not name:
            raise self.loc.error(name_path, "the parameter name is required")
        if not _PARAMETER_NAME.fullmatch(name):
            raise self.loc.error(
                name_path,
                f'parameter name "{name}" must start with a letter or \'_\' and contain only '
                "letters, digits, '_', '.' and '-' (it becomes a --name=value flag)")
        kind = param.get("type")
        type_path = _child(path, "type")
        if kind is None:
            raise self.loc.error(
                type_path,
                f'parameter "{name}" needs a type: DOUBLE, INTEGER, CATEGORICAL or DISCRETE')
        takes_bounds = kind in ("DOUBLE", "INTEGER")
        for bound in ("minValue", "maxValue"):
            if not takes_bounds and bound in param:
                raise self.loc.error(
                    _child(path, bound),
                    f"only DOUBLE and INTEGER parameters take bounds, this one is {kind}")
        if kind != "CATEGORICAL" and param.get("categoricalValues"):
            raise self.loc.error(
                _child(path, "categoricalValues"),
                f"only CATEGORICAL parameters take categorical values, this one is {kind}")
        if kind != "DISCRETE" and param.get("discreteValues"):
            raise self.loc.error(
                _child(path, "discreteValues"),
                f"only DISCRETE parameters take discrete values, this one is {kind}")
        scale = param.get("scaleType", "NONE")
        if kind == "CATEGORICAL" and scale in LOG_SCALES:
            raise self.loc.error(_child(path, "scaleType"),
                                 f"CATEGORICAL parameters cannot be scaled, got {scale}")
        if kind == "DOUBLE" and algorithm == "GRID_SEARCH":
            raise self.loc.error(
                type_path,
                f'GRID_SEARCH cannot enumerate DOUBLE parameter "{name}"; make it INTEGER, '
                "DISCRETE or CATEGORICAL, or pick another algorithm")
        if takes_bounds:
            self._validate_bounds(param, path, kind, scale)
        elif kind == "CATEGORICAL":
            self._validate_categorical(param, path, name)
        else:
            self._validate_discrete(param, path, name, scale)

    def _validate_bounds(self, param: Dict[str, Any], path: str, kind: str, scale: str) -> None:
        low, high = param["minValue"], param["maxValue"]
        min_path, max_path = _child(path, "minValue"), _child(path, "maxValue")
        if kind == "INTEGER":
            for bound, bound_path in ((low, min_path), (high, max_path)):
                if math.trunc(bound) != bound:
                    raise self.loc.error(
                        bound_path,
                        f"an INTEGER parameter needs whole-number bounds, got {format_number(bound)}")
                if abs(bound) > LARGEST_EXACT_INTEGER:
                    raise self.loc.error(
                        bound_path,
                        "INTEGER bounds must lie within +-2^53 = +-9007199254740992, got "
                        f"{format_number(bound)}")
        if low >= high:
            raise self.loc.error(
                max_path,
                f"the maximum ({format_number(high)}) must be greater than the minimum "
                f"({format_number(low)})")
        if scale in LOG_SCALES and low <= 0:
            raise self.loc.error(min_path,
                                 f"{scale} needs a positive minimum, got {format_number(low)}")

    def _validate_categorical(self, param: Dict[str, Any], path: str, name: str) -> None:
        values_path = _child(path, "categoricalValues")
        values = param.get("categoricalValues", [])
        if not values:
            raise self.loc.error(values_path,
                                 f'CATEGORICAL parameter "{name}" needs at least one value')
        first_index: Dict[str, int] = {}
        for index, value in enumerate(values):
            element_path = f"{values_path}[{index}]"
            if not value:
                raise self.loc.error(element_path, "categorical values must not be empty")
            if value in first_index:
                raise self.loc.error(
                    element_path,
                    f'duplicate categorical value "{value}" (first at index {first_index[value]})')
            first_index[value] = index

    def _validate_discrete(self, param: Dict[str, Any], path: str, name: str, scale: str) -> None:
        values_path = _child(path, "discreteValues")
        values = param.get("discreteValues", [])
        if not values:
            raise self.loc.error(values_path,
                                 f'DISCRETE parameter "{name}" needs at least one value')
        if len(values) > MAX_DISCRETE_VALUES:
            raise self.loc.error(
                values_path,
                f"has {len(values)} values; at most {MAX_DISCRETE_VALUES} are allowed")
        for index in range(1, len(values)):
            if values[index] <= values[index - 1]:
                raise self.loc.error(
                    f"{values_path}[{index}]",
                    f"values must be strictly increasing, but value {format_number(values[index])} "
                    f"at index {index} follows {format_number(values[index - 1])} at index "
                    f"{index - 1}")
        if scale in LOG_SCALES and values[0] <= 0:
            raise self.loc.error(f"{values_path}[0]",
                                 f"{scale} needs positive values, got {format_number(values[0])}")


def _parameter_proto(param: Dict[str, Any]) -> study_pb2.ParameterSpec:
    proto = study_pb2.ParameterSpec(
        parameter_name=param["parameterName"],
        type=study_pb2.ParameterSpec.Type.Value(param["type"]),
        scale_type=study_pb2.ParameterSpec.ScaleType.Value(param.get("scaleType", "NONE")),
    )
    if "minValue" in param:
        proto.min_value = param["minValue"]
        proto.max_value = param["maxValue"]
    proto.categorical_values.extend(param.get("categoricalValues", []))
    proto.discrete_values.extend(param.get("discreteValues", []))
    return proto


def job_id_problem(job_id: str) -> str:
    """Why a job id breaks AI Platform's rule, or "" when it keeps it."""
    if not job_id:
        return "job id is empty; it must start with a letter"
    if not job_id[0].isascii() or not job_id[0].isalpha():
        return f'job id "{job_id}" must start with a letter'
    if len(job_id) > MAX_JOB_ID_LENGTH:
        return (f'job id "{job_id}" is {len(job_id)} characters long; at most '
                f"{MAX_JOB_ID_LENGTH} are allowed")
    for position, char in enumerate(job_id):
        if not (char.isascii() and (char.isalnum() or char == "_")):
            return (f"job id \"{job_id}\" has '{char}' at position {position}; only letters, "
                    "digits and underscores are allowed")
    return ""


# YAML files --------------------------------------------------------------


def _from_yaml_node(node: yaml.Node, path: str, location: _Location) -> Any:
    """Plain values from a composed YAML tree, with the marks of every key,
    list element and value recorded under its field path."""
    location.value_marks[path] = (node.start_mark.line, node.start_mark.column)
    if isinstance(node, yaml.MappingNode):
        result: Dict[str, Any] = {}
        first_line: Dict[str, int] = {}
        for key_node, value_node in node.value:
            mark = (key_node.start_mark.line, key_node.start_mark.column)
            if not isinstance(key_node, yaml.ScalarNode):
                raise InvalidArgument(
                    f"{location.file_name}:{mark[0] + 1}:{mark[1] + 1}: "
                    f"{path + ': ' if path else ''}keys must be plain names, got "
                    f"{'a list' if isinstance(key_node, yaml.SequenceNode) else 'a mapping'}",
                    field=path)
            key = key_node.value
            key_path = _child(path, key)
            if key in first_line:
                location.key_marks[key_path] = mark
                raise location.error(
                    key_path, f'duplicate key "{key}" (first at line {first_line[key]})')
            first_line[key] = mark[0] + 1
            location.key_marks[key_path] = mark
            result[key] = _from_yaml_node(value_node, key_path, location)
        return result
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, element in enumerate(node.value):
            element_path = f"{path}[{index}]"
            location.key_marks[element_path] = (element.start_mark.line, element.start_mark.column)
            items.append(_from_yaml_node(element, element_path, location))
        return items
    return _YamlScalar(text=node.value, quoted=node.style in ("'", '"', "|", ">"))


def load_yaml_document(path: Union[str, "os.PathLike[str]"]) -> Tuple[Any, _Location]:
    """Reads a YAML file into plain values (scalars kept as written) and the
    positions of its fields."""
    file_name = os.fspath(path)
    if not os.path.exists(file_name):
        raise NotFound(f'config file "{file_name}" does not exist')
    if os.path.isdir(file_name):
        raise InvalidArgument(f'config file "{file_name}" is a directory, not a YAML file')
    try:
        with open(file_name, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f'cannot read config file "{file_name}": {error}') from error
    location = _Location(file_name)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"{file_name}:{mark.line + 1}:{mark.column + 1}" if mark else f"{file_name}:1:1"
        raise InvalidArgument(f"{where}: YAML syntax error: {error.problem}") from error
    except yaml.YAMLError as error:
        raise InvalidArgument(f"{file_name}:1:1: YAML syntax error: {error}") from error
    if node is None:
        raise InvalidArgument(
            f"{file_name}:1:1: the document is empty; expected a hyperparameters mapping")
    return _from_yaml_node(node, "", location), location


def _hyperparameters_block(document: Any, location: _Location) -> Tuple[Any, str]:
    """The ``hyperparameters:`` mapping of a document and its path: the
    document may be the block itself, a trainingInput mapping holding it, or
    ``trainingInput:`` wrapping that (the gcloud form)."""
    if not isinstance(document, Mapping):
        raise location.error(
            "", f"expected a mapping (the hyperparameters block), got {_describe(document)}", True)
    path = ""
    if "trainingInput" in document:
        extra = [key for key in document if key != "trainingInput"]
        if extra:
            raise location.error(
                extra[0], f'unknown key "{extra[0]}"; only trainingInput may stand beside it')
        document, path = document["trainingInput"], "trainingInput"
        if not isinstance(document, Mapping):
            raise location.error(path, f"expected a mapping, got {_describe(document)}", True)
    if "hyperparameters" in document:
        return document["hyperparameters"], _child(path, "hyperparameters")
    job_keys = [key for key in document if key in _TRAINING_INPUT_KEYS]
    if path or job_keys:
        raise location.error(
            _child(path, "hyperparameters"),
            "a study needs the hyperparameters block; this trainingInput has none")
    return document, path


def study_spec_from(spec: SpecSource) -> study_pb2.StudySpec:
    """The StudySpec for a spec in the YAML ``hyperparameters:`` vocabulary.

    Args:
        spec: a mapping (``{"goal": "MAXIMIZE", "hyperparameterMetricTag":
            "accuracy", "params": [...]}``), or the path of a YAML file holding
            such a block, a trainingInput with one, or ``trainingInput:``
            wrapping that (an hptuning config for ``vernier jobs submit``
            works as is; the keys about how a job runs are ignored). A
            ``vernier.v1.StudySpec`` is returned as a copy, unchecked.

    Returns:
        The spec the server takes: one metric (``hyperparameterMetricTag``
        with ``goal``, default ``training/hptuning/metric`` and MAXIMIZE), the
        parameters, the algorithm, the trial limits (absent: no limit;
        ``maxFailedTrials`` absent: max(1, maxTrials / 2) as for jobs) and
        early stopping.

    Raises:
        InvalidArgument: the spec breaks a rule; ``field`` names the field.
        NotFound: ``spec`` is a path and no such file exists.
    """
    if isinstance(spec, study_pb2.StudySpec):
        copy = study_pb2.StudySpec()
        copy.CopyFrom(spec)
        return copy
    if isinstance(spec, (str, os.PathLike)):
        document, location = load_yaml_document(spec)
    elif isinstance(spec, Mapping):
        document, location = spec, _Location()
    else:
        raise InvalidArgument(
            f"a study spec is a mapping or the path of a YAML file, got {type(spec).__name__}")
    block, path = _hyperparameters_block(document, location)
    return _SpecReader(location).hyperparameters(block, path)
