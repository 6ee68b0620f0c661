#!/usr/bin/env python3
"""Generate every surface that repeats per XIOS kind x attribute from one table.

    gen_attributes.py TABLE OUTDIR           write the generated files into OUTDIR
    gen_attributes.py --check TABLE DOC.md   exit 1 when DOC.md's attribute table differs

TABLE is src/config/xios_attributes.tsv (its header says what each column means). The outputs:

    schema_tables.inc        C++: the attributes each XML element accepts, with their types, and
                             the attributes accepted by the reader but refused at close of definition
    xios_attr_public.inc     Fortran: the public statement of the generated routines
    xios_attr_set.inc        Fortran: xios_set_<kind>_attr
    xios_attr_get.inc        Fortran: xios_get_<kind>_attr
    xios_attr_defined.inc    Fortran: xios_is_defined_<kind>_attr
    xios-attributes.md       the Markdown table of docs/xios-compatibility.md
    xios_handle_types.inc    Fortran: the handle types of XIOS's API (xios_domain, xios_fieldgroup, ...)
    xios_handle_public.inc   Fortran: their public statement and generic interfaces (xios_get_handle,
                             xios_add_child, xios_set_attr, xios_get_attr, xios_is_defined_attr)
    xios_handles.inc         Fortran: per handle kind xios_get_<kind>_handle, xios_is_valid_<kind>,
                             the xios_add_<child>[to<parent>] routines, the _hdl attribute routines
                             and the group attribute routines (xios_set_fieldgroup_attr, ...)
    xios_modules.f90         Fortran: XIOS's per-kind modules (icontext, idomain, ...) over module xios

Standard library only: it runs at build time wherever CMake runs.
"""
import os
import re
import sys
from dataclasses import dataclass

TABLE_PATH = "src/config/xios_attributes.tsv"
BEGIN_MARK = "<!-- attribute table: generated from src/config/xios_attributes.tsv; edit the table -->"
END_MARK = "<!-- end of the attribute table -->"
STATUSES = ("acted", "stored", "refused", "model")
VERBS = set("sxgd")

# XML element kind -> schema::Schema enumerator, in the order the switch lists them.
SCHEMA_OF = {"context": "context", "calendar": "calendar", "variable": "variable",
             "variable_group": "variable_group", "axis": "axis", "domain": "domain", "scalar": "scalar",
             "grid": "grid", "field": "field", "file": "file"}
# Kinds whose Fortran routines keep attributes in a state type until close of definition.
STATE_OF = {"domain": ("domain_state", "domains"), "axis": ("axis_state", "axes"),
            "scalar": ("scalar_state", "scalars")}
# XIOS's transformation classes with their parent and legacy (ixml_tree) add routine. Their rows
# give only Fortran routines: their XML check is src/config/transformations.cpp (by element name).
TRANSFORMATIONS = {"zoom_domain": ("domain", "add_zoomdomaintodomain"),
                   "extract_domain": ("domain", "add_extractdomaintodomain"),
                   "interpolate_domain": ("domain", "add_interpolatedomaintodomain"),
                   "generate_rectilinear_domain": ("domain", "add_generatedomaintodomain"),
                   "zoom_axis": ("axis", "add_zoomaxistoaxis"), "extract_axis": ("axis", "add_extractaxistoaxis"),
                   "inverse_axis": ("axis", "add_inverseaxistoaxis"),
                   "interpolate_axis": ("axis", "add_interpolateaxistoaxis"),
                   "reduce_domain_to_axis": ("axis", "add_reducedomaintoaxistoaxis"),
                   "extract_domain_to_axis": ("axis", "add_extractdomaintoaxistoaxis"),
                   "reduce_axis_to_scalar": ("scalar", "add_reduceaxistoscalartoscalar"),
                   "reduce_domain_to_scalar": ("scalar", "add_reducedomaintoscalartoscalar"),
                   "extract_axis_to_scalar": ("scalar", "add_extractaxistoscalartoscalar"),
                   # XIOS has no add routine for these (None): their handles come from XML ids.
                   "reorder_domain": ("domain", None), "expand_domain": ("domain", "add_expanddomaintodomain"),
                   "reduce_axis_to_axis": ("axis", None), "duplicate_scalar_to_axis": ("axis", None),
                   "temporal_splitting": ("axis", None), "reduce_scalar_to_scalar": ("scalar", None)}
FORTRAN_KINDS = ("domain", "axis", "scalar", "grid", "field", "file", "variable") + tuple(TRANSFORMATIONS)
# XIOS's handle types (xios_<name>) and the foehn element kind each names.
HANDLES = {"domain": "domain", "domaingroup": "domain_group", "axis": "axis", "axisgroup": "axis_group",
           "scalar": "scalar", "scalargroup": "scalar_group", "grid": "grid", "gridgroup": "grid_group",
           "field": "field", "fieldgroup": "field_group", "file": "file", "filegroup": "file_group",
           "variable": "variable", "variablegroup": "variable_group", **{t: t for t in TRANSFORMATIONS}}
# xios_add_child's (parent, child) pairs, with XIOS's legacy (ixml_tree) name of each.
CHILDREN = {("fieldgroup", "field"): "add_field", ("fieldgroup", "fieldgroup"): "add_fieldgroup",
            ("file", "field"): "add_fieldtofile", ("file", "fieldgroup"): "add_fieldgrouptofile",
            ("file", "variable"): "add_variabletofile", ("file", "variablegroup"): "add_variablegrouptofile",
            ("field", "variable"): "add_variabletofield", ("field", "variablegroup"): "add_variablegrouptofield",
            ("filegroup", "file"): "add_file", ("filegroup", "filegroup"): "add_filegroup",
            ("domaingroup", "domain"): "add_domain", ("domaingroup", "domaingroup"): "add_domaingroup",
            ("axisgroup", "axis"): "add_axis", ("axisgroup", "axisgroup"): "add_axisgroup",
            ("scalargroup", "scalar"): "add_scalar", ("scalargroup", "scalargroup"): "add_scalargroup",
            ("gridgroup", "grid"): "add_grid", ("gridgroup", "gridgroup"): "add_gridgroup",
            ("grid", "domain"): "add_domaintogrid", ("grid", "axis"): "add_axistogrid",
            ("grid", "scalar"): "add_scalartogrid", **{(p, t): n for t, (p, n) in TRANSFORMATIONS.items() if n}}
# Group handles with attribute routines: the member kind whose attributes they take.
GROUP_ATTRS = {"fieldgroup": "field", "filegroup": "file"}
# XIOS's per-kind modules that models `use`; each re-exports module xios.
MODULES = ("icontext", "idomain", "idomain_attr", "idomaingroup_attr", "iaxis", "iaxis_attr", "iaxisgroup_attr",
           "iscalar", "iscalar_attr", "iscalargroup_attr", "igrid", "igrid_attr", "igridgroup_attr", "ifield",
           "ifield_attr", "ifieldgroup_attr", "ifile", "ifile_attr", "ifilegroup_attr", "ivariable",
           "ivariable_attr", "ivariablegroup_attr", "icontext_attr", "icalendar", "icalendar_wrapper",
           "icalendar_wrapper_attr", "idate", "iduration", "ixml_tree", "idata", "itimer", "ixios_interfaces") + tuple(
               m for t in TRANSFORMATIONS for m in (f"i{t}", f"i{t}_attr"))


@dataclass
class Attr:
    kind: str
    name: str
    type: str
    rank: int
    status: str
    fortran: str
    route: str
    default: str
    note: str
    line: int

    @property
    def base(self):  # the type without bounds or choices
        return re.match(r"[a-z]+", self.type).group(0)

    @property
    def keep(self):  # (member, member rank) in the Fortran state, or None
        if self.route in ("-", "mask"):
            return None
        parts = self.route.split(":")
        return parts[1], int(parts[2]) if len(parts) > 2 else self.rank


def fail(message):
    sys.exit("gen_attributes.py: " + message)


def read_table(path):
    attrs, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            where = f"{path}:{number}"
            if len(cols) != 9:
                fail(f"{where}: {len(cols)} columns, expected 9 separated by tabs")
            kind, name, type_, rank, status, fortran, route, default, note = cols
            a = Attr(kind, name, type_, int(rank), status, fortran, route, default, note, number)
            if (kind, name) in seen:
                fail(f"{where}: {kind} {name} is listed twice")
            seen.add((kind, name))
            if status not in STATUSES:
                fail(f"{where}: status '{status}' is not one of {', '.join(STATUSES)}")
            if fortran != "-" and not set(fortran) <= VERBS:
                fail(f"{where}: fortran '{fortran}' is not made of s, x, g, d")
            if route not in ("-", "mask") and not re.fullmatch(r"keep:[a-z_0-9]+(:[0-3])?", route):
                fail(f"{where}: route '{route}' is not -, mask or keep:<member>[:<rank>]")
            if route == "mask" and type_ != "bool":
                fail(f"{where}: route mask takes a bool")
            if a.base not in ("string", "bool", "int", "double", "duration", "date", "enum", "prec", "calendar",
                              "vartype"):
                fail(f"{where}: unknown type '{type_}'")
            if ("x" in fortran or status == "refused") and note == "-":
                fail(f"{where}: a refused attribute needs a note saying why")
            if '"' in note:
                fail(f"{where}: a note is quoted in generated code: write it without double quotes")
            attrs.append(a)
    return attrs


# ---------------------------------------------------------------- C++ schema

def cxx_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cxx_spec(a):
    base = a.base
    if a.rank > 0 and base in ("int", "double"):
        return "{%s, Type::real_list}" % cxx_string(a.name)
    if base == "string" or (a.rank > 0 and base != "bool"):
        return "{%s}" % cxx_string(a.name)
    simple = {"bool": "boolean", "double": "real", "date": "date", "prec": "prec", "calendar": "calendar_type",
              "vartype": "variable_type"}
    if base in simple:
        return "{%s, Type::%s}" % (cxx_string(a.name), simple[base])
    if base == "duration":
        return "{%s, Type::%s}" % (cxx_string(a.name), "frequency" if a.type == "duration>0" else "duration")
    if base == "enum":
        choices = re.fullmatch(r"enum\((.*)\)", a.type).group(1)
        return "{%s, Type::choice, %s}" % (cxx_string(a.name), cxx_string(choices))
    bounds = re.fullmatch(r"int(?:\[(-?\d*)\.\.(-?\d*)\])?", a.type)
    if not bounds:
        fail(f"line {a.line}: bad int type '{a.type}' (int or int[min..max])")
    low, high = bounds.group(1) or "kNoMin", bounds.group(2) or "kNoMax"
    if low == "kNoMin" and high == "kNoMax":
        return "{%s, Type::integer}" % cxx_string(a.name)
    return "{%s, Type::integer, {}, %s, %s}" % (cxx_string(a.name), low, high)


def schema_tables(attrs):
    xml = [a for a in attrs if a.status != "model" and a.kind not in TRANSFORMATIONS]
    out = ["// Generated from src/config/xios_attributes.tsv by cmake/gen_attributes.py; edit the table.",
           "// Included by src/config/schema.cpp inside namespace foehn::config::detail::(anonymous).", "",
           "const Table& table_of(Schema schema) {", "  static const Table none = {};"]
    tables = {}
    for a in xml:
        tables.setdefault(a.kind, []).append(cxx_spec(a))
    # A <field_group> inside a <file> takes a field's attributes and its own.
    tables["file_field_group"] = tables["field"] + tables.pop("field_group", [])
    for kind, specs in tables.items():
        out.append(f"  static const Table {kind} = {{")
        out.extend(wrap_cxx(specs))
        out.append("  };")
    out.append("  switch (schema) {")
    out.append("    case Schema::simulation: return none;")
    for kind in tables:
        if kind not in SCHEMA_OF and kind != "file_field_group":
            fail(f"kind '{kind}' is no XML element the schema knows")
        out.append(f"    case Schema::{kind}: return {kind};")
    out += ["  }", "  return none;", "}", "",
            "// Attributes the reader accepts and close of definition refuses, with the reason users see.",
            "constexpr Refusal kRefused[] = {"]
    for a in xml:
        if a.status == "refused":
            out.append("    {%s, %s, %s}," % (cxx_string(a.kind), cxx_string(a.name), cxx_string(a.note)))
    out.append("};")
    out += ["", "// Attributes kept and read back with no effect (the XIOS-style API may set them from code).",
            "constexpr Refusal kStored[] = {"]
    for a in xml:
        if a.status == "stored":
            out.append("    {%s, %s, %s}," % (cxx_string(a.kind), cxx_string(a.name), cxx_string(a.note)))
    out.append("};")
    return "\n".join(out) + "\n"


def wrap_cxx(specs):
    lines, line = [], "     "
    for s in specs:
        if len(line) + len(s) + 2 > 118:
            lines.append(line.rstrip())
            line = "     "
        line += " " + s + ","
    lines.append(line.rstrip())
    return lines


# ---------------------------------------------------------------- Fortran

FORTRAN_TYPE = {"string": "character(*)", "enum": "character(*)", "calendar": "character(*)",
                "vartype": "character(*)", "int": "integer", "prec": "integer", "double": "real(real64)",
                "bool": "logical", "duration": "type(xios_duration)", "date": "type(xios_date)"}
# How a value reaches foehn_set_attribute as text, and how the text comes back.
TO_TEXT = {"string": "{v}", "enum": "{v}", "vartype": "{v}", "bool": 'merge("true ", "false", {v})', "int": "int_text(int({v}, 8))",
           "prec": "int_text(int({v}, 8))", "duration": "xios_duration_to_string({v})", "double": "real_text({v})"}
FROM_TEXT = {"string": "attr_text", "enum": "attr_text", "vartype": "attr_text", "int": "attr_int",
             "prec": "attr_int", "double": "attr_real", "bool": "attr_logical", "duration": "attr_duration"}


def wrap_fortran(line):
    """Continues a line longer than 118 characters with '&' at a ', ' outside strings and brackets."""
    indent = len(line) - len(line.lstrip())
    out = []
    while len(line) > 118:
        cuts, quoted, depth = [], False, 0  # the outermost, then the last, comma wins
        for i, ch in enumerate(line[:116]):
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch in "([":
                depth += 1
            elif not quoted and ch in ")]":
                depth -= 1
            elif ch == "," and not quoted and line[i + 1:i + 2] == " ":
                cuts.append((-depth, i + 1))
        if not cuts:
            break
        cut = max(cuts)[1]
        out.append(line[:cut] + " &")
        line = " " * (indent + 4) + line[cut:].lstrip()
    if len(line) > 132:  # gfortran's limit for free-form source
        fail(f"a generated Fortran line is too long to continue (shorten the note): {line.strip()}")
    out.append(line)
    return "\n".join(out)


def dims(rank):
    return "" if rank == 0 else "(" + ",".join([":"] * rank) + ")"


def declaration(a, intent):
    ftype = "logical" if intent == "defined" else FORTRAN_TYPE[a.base]
    return f"    {ftype}, intent({'out' if intent != 'in' else 'in'}), optional :: {a.name}" + (
        dims(a.rank) if intent != "defined" else "")


def header(verb, kind, args, named_call=True):
    name = f"xios_{verb}_{kind}_attr"
    first = f"  subroutine {name}({', '.join([kind + '_id'] + [a.name for a in args])})"
    lines = [wrap_fortran(first), f"    character(*), intent(in) :: {kind}_id"]
    return lines + ([f'    character(*), parameter :: call = "{name}"'] if named_call else [])


def keep_assignment(a):
    member, member_rank = a.keep
    v = a.name
    if member_rank == a.rank:
        return f"s%{member} = {v}"
    if member_rank == 1:
        return f"s%{member} = reshape({v}, [size({v})])"
    if member_rank == 2:
        return f"s%{member} = reshape({v}, [size({v}, 1), size({v}) / max(1, size({v}, 1))])"
    fail(f"line {a.line}: cannot flatten rank {a.rank} to rank {member_rank}")


def set_routine(kind, attrs, ckind=None):
    ckind = ckind or kind  # the kind foehn knows it as (field_group for fieldgroup)
    args = sorted((a for a in attrs if "s" in a.fortran or "x" in a.fortran), key=lambda a: a.name)
    out = header("set", kind, args) + [declaration(a, "in") for a in args]
    kept = [a for a in args if "s" in a.fortran and a.keep]
    if kept:
        out += ["    integer :: k", "    logical :: keep"]
    for a in args:
        if "x" in a.fortran and a.base == "bool" and a.rank >= 1:
            # A mask that hides no point changes nothing (XIOS's test_new_features sends one).
            out.append(f"    if (present({a.name})) then")
            out.append(wrap_fortran(f'      if (.not. all({a.name})) call unsupported(call, {kind}_id, .true., '
                                    f'"{a.name}", "{a.note}")'))
            out.append("    end if")
        elif "x" in a.fortran:
            out.append(wrap_fortran(f'    call unsupported(call, {kind}_id, present({a.name}), "{a.name}", "{a.note}")'))
    for a in args:
        if "s" in a.fortran and a.route == "mask":  # flags to foehn_set_mask at once, flattened
            flags = f"[{a.name}]" if a.rank == 0 else f"reshape({a.name}, [size({a.name})])"
            out.append(wrap_fortran(f'    if (present({a.name})) call set_mask(call, "{ckind}", {kind}_id, {flags})'))
        elif "s" in a.fortran and not a.keep:
            if a.base not in TO_TEXT:
                fail(f"line {a.line}: xios_set_{kind}_attr cannot pass a {a.base} to foehn yet")
            value = TO_TEXT[a.base].format(v=a.name)
            out.append(wrap_fortran(f'    if (present({a.name})) call set_attribute(call, "{ckind}", {kind}_id, '
                                    f'"{a.name}", {value})'))
    if kept:
        # The state of an element is made only when a kept attribute comes (a
        # domain added to a grid takes only its domain_ref).
        _, plural = STATE_OF[kind]
        out += ["    keep = .false."] + [f"    keep = keep .or. present({a.name})" for a in kept]
        out += ["    if (.not. keep) return", f"    k = {kind}_slot({kind}_id, call)",
                f"    associate (s => contexts(current)%{plural}(k))"]
        out += [wrap_fortran(f"      if (present({a.name})) {keep_assignment(a)}") for a in kept]
        out.append("    end associate")
    out.append(f"  end subroutine xios_set_{kind}_attr")
    return out


def state_copy(kind):
    if kind not in ("domain", "axis"):  # xios_get.inc has domain_state_of and axis_state_of
        fail(f"xios_get/is_defined_{kind}_attr cannot read a kept attribute: add {kind}_state_of to xios_get.inc")
    state, _ = STATE_OF[kind]
    return [f"    type({state}) :: s"], [f"    s = {kind}_state_of({kind}_id, call)"]


def get_routine(kind, attrs, ckind=None):
    ckind = ckind or kind
    args = sorted((a for a in attrs if "g" in a.fortran), key=lambda a: a.name)
    out = header("get", kind, args, any(a.keep for a in args)) + [declaration(a, "out") for a in args]
    body = []
    if any(a.keep for a in args):
        decl, body = state_copy(kind)
        out += decl
    for a in args:
        if a.keep and a.rank > 0:
            # Arrays only the model gives: its values, in the shape of the argument.
            member, _ = a.keep
            body += [f"    if (present({a.name})) then",
                     f'      if (.not. allocated(s%{member})) call kept_array_missing(call, {kind}_id, "{a.name}")',
                     wrap_fortran(f'      call kept_array_size(size(s%{member}), size({a.name}), call, {kind}_id, '
                                  f'"{a.name}")'),
                     f"      {a.name} = reshape(s%{member}, shape({a.name}))", "    end if"]
            continue
        if a.keep:
            member, _ = a.keep
            if a.base == "int":
                value = f'kept_int(s%{member}, "{kind}", {kind}_id, "{a.name}")'
            elif FORTRAN_TYPE[a.base] == "character(*)":
                value = f'model_or_xml(s%{member}, "{kind}", {kind}_id, "{a.name}")'
            else:
                fail(f"line {a.line}: xios_get_{kind}_attr cannot read a kept {a.base}")
        else:
            value = f'{FROM_TEXT[a.base]}("{ckind}", {kind}_id, "{a.name}")'
        body.append(wrap_fortran(f"    if (present({a.name})) {a.name} = {value}"))
    return out + body + [f"  end subroutine xios_get_{kind}_attr"]


def defined_routine(kind, attrs, ckind=None):
    ckind = ckind or kind
    args = sorted((a for a in attrs if "d" in a.fortran), key=lambda a: a.name)
    out = header("is_defined", kind, args, any(a.keep for a in args)) + [declaration(a, "defined") for a in args]
    body = []
    if any(a.keep for a in args):
        decl, body = state_copy(kind)
        out += decl
    for a in args:
        xml = f'xml_defined("{ckind}", {kind}_id, "{a.name}")'
        if a.keep:
            member, _ = a.keep
            scalar_int = a.base == "int" and a.rank == 0
            model = f"s%{member} /= unset" if scalar_int else f"allocated(s%{member})"
            # Only the model gives what the XML does not take. The impure call
            # comes first so that it is always evaluated.
            value = model if a.status == "model" else f"{xml} .or. {model}"
        else:
            value = xml
        body.append(wrap_fortran(f"    if (present({a.name})) {a.name} = {value}"))
    return out + body + [f"  end subroutine xios_is_defined_{kind}_attr"]


def fortran_files(attrs):
    stamp = "! Generated from src/config/xios_attributes.tsv by cmake/gen_attributes.py; edit the table."
    by_kind = {k: [a for a in attrs if a.kind == k and a.fortran != "-"] for k in FORTRAN_KINDS}
    files, public = {}, []
    for group, member in GROUP_ATTRS.items():
        by_kind[group] = by_kind[member]
    for verb, make, letters in (("set", set_routine, "sx"), ("get", get_routine, "g"),
                                ("defined", defined_routine, "d")):
        lines = [stamp, "! Included by bindings/fortran/xios.f90 after contains."]
        for kind in FORTRAN_KINDS + tuple(GROUP_ATTRS):
            if any(set(a.fortran) & set(letters) for a in by_kind[kind]):
                lines += [""] + make(kind, by_kind[kind], HANDLES.get(kind, kind))
                public.append(f"xios_{'is_defined' if verb == 'defined' else verb}_{kind}_attr")
        files[f"xios_attr_{verb}.inc"] = "\n".join(lines) + "\n"
    files["xios_attr_public.inc"] = stamp + "\n" + wrap_fortran("  public :: " + ", ".join(public)) + "\n"
    files.update(handle_files(by_kind, stamp))
    return files


def handle_files(by_kind, stamp):
    """The handle types, xios_get_handle, xios_is_valid_*, xios_add_child and the _hdl attribute routines."""
    types = [stamp, "! Included by bindings/fortran/xios.f90 before contains: a handle names an element by id."]
    for h in HANDLES:
        types += [f"  type, public :: xios_{h}", "    character(:), allocatable :: id", f"  end type xios_{h}"]
    body = [stamp, "! Included by bindings/fortran/xios.f90 after contains."]
    public = []
    generic = {"xios_get_handle": ["xios_get_context_handle"], "xios_add_child": [], "xios_set_attr": [],
               "xios_get_attr": [], "xios_is_defined_attr": []}
    for h, kind in HANDLES.items():
        body += ["", f"  subroutine xios_get_{h}_handle(idt, ret)", "    character(*), intent(in) :: idt",
                 f"    type(xios_{h}), intent(out) :: ret",
                 f'    ret%id = handle_id("{kind}", idt, "xios_get_handle")', f"  end subroutine xios_get_{h}_handle",
                 "", f"  logical function xios_is_valid_{h}(idt) result(valid)", "    character(*), intent(in) :: idt",
                 f'    valid = foehn_has_element(current_ctx("xios_is_valid_{h}"), "{kind}", idt)',
                 f"  end function xios_is_valid_{h}"]
        public += [f"xios_get_{h}_handle", f"xios_is_valid_{h}"]
        generic["xios_get_handle"].append(f"xios_get_{h}_handle")
    for (parent, child), name in CHILDREN.items():
        body += ["", f"  subroutine xios_{name}(parent_hdl, child_hdl, child_id)",
                 f"    type(xios_{parent}), intent(in) :: parent_hdl", f"    type(xios_{child}), intent(out) :: child_hdl",
                 "    character(*), intent(in), optional :: child_id",
                 wrap_fortran(f'    child_hdl%id = new_child("{HANDLES[parent]}", parent_hdl%id, "{HANDLES[child]}", '
                              'child_id)'),
                 f"  end subroutine xios_{name}"]
        public.append(f"xios_{name}")
        generic["xios_add_child"].append(f"xios_{name}")
    for kind, attrs in by_kind.items():
        for verb, letters, intent, generic_name in (("set", "sx", "in", "xios_set_attr"),
                                                    ("get", "g", "out", "xios_get_attr"),
                                                    ("is_defined", "d", "defined", "xios_is_defined_attr")):
            args = sorted((a for a in attrs if set(a.fortran) & set(letters)), key=lambda a: a.name)
            if not args:
                continue
            name = f"xios_{verb}_{kind}_attr"
            body += ["", wrap_fortran(f"  subroutine {name}_hdl({', '.join([kind + '_hdl'] + [a.name for a in args])})"),
                     f"    type(xios_{kind}), intent(in) :: {kind}_hdl"] + [declaration(a, intent) for a in args]
            body.append(wrap_fortran(f"    call {name}({', '.join([kind + '_hdl%id'] + [a.name + '=' + a.name for a in args])})"))
            body.append(f"  end subroutine {name}_hdl")
            public.append(f"{name}_hdl")
            generic[generic_name].append(f"{name}_hdl")
    # xios_recv_field: XIOS's signature over foehn_read (recv_r4/recv_r8 in bindings/fortran/xios_tree.inc).
    recv = []
    for kind, real in (("r4", "real32"), ("r8", "real64")):
        for rank in range(8):
            recv += ["", f"  subroutine recv_{kind}_{rank}(fieldid, data_k8)", "    character(*), intent(in) :: fieldid",
                     f"    real({real}), intent(inout) :: data_k8{dims(rank)}"]
            if rank:
                recv += [f"    call recv_{kind}(fieldid, data_k8, size(data_k8))"]
            else:
                recv += [f"    real({real}) :: one(1)", "    one(1) = data_k8", f"    call recv_{kind}(fieldid, one, 1)",
                         "    data_k8 = one(1)"]
            recv += [f"  end subroutine recv_{kind}_{rank}"]
            generic.setdefault("xios_recv_field", []).append(f"recv_{kind}_{rank}")
    body += recv
    interfaces = [stamp, "! Included by bindings/fortran/xios.f90 before contains."]
    interfaces.append(wrap_fortran("  public :: " + ", ".join(public + list(generic))))
    for g, procedures in generic.items():
        interfaces += [f"  interface {g}", wrap_fortran("    module procedure " + ", ".join(procedures)),
                       f"  end interface {g}"]
    modules = [stamp, "! XIOS's per-kind modules: a model that uses one of them gets what module xios exports."]
    for m in MODULES:
        modules += [f"module {m}", "  use xios", "  implicit none", "  public", f"end module {m}", ""]
    return {"xios_handle_types.inc": "\n".join(types) + "\n", "xios_handles.inc": "\n".join(body) + "\n",
            "xios_handle_public.inc": "\n".join(interfaces) + "\n", "xios_modules.f90": "\n".join(modules)}


# ---------------------------------------------------------------- Markdown

STATUS_TEXT = {"acted": "yes", "stored": "kept, no effect", "refused": "refused", "model": "from the model"}


def markdown_type(a):
    if a.base == "enum":
        text = ", ".join(re.fullmatch(r"enum\((.*)\)", a.type).group(1).split("|"))
    elif a.type == "duration>0":
        text = "duration > 0"
    elif a.base in ("prec", "calendar", "vartype"):
        text = {"prec": "4 or 8", "calendar": "calendar type", "vartype": "variable type"}[a.base]
    else:
        text = a.type.replace("[", " ").replace("]", "").replace("..", " to ").rstrip()
        text = re.sub(r" to$", " or more", text)
    return text + (f", rank {a.rank}" if a.rank else "")


def markdown_fortran(a):
    words = []
    if "s" in a.fortran:
        words.append("set")
    if "x" in a.fortran:
        words.append("set stops")
    if "g" in a.fortran:
        words.append("get")
    if "d" in a.fortran:
        words.append("is_defined")
    return ", ".join(words)


def markdown(attrs):
    rows = [BEGIN_MARK, "", "| element | attribute | type | acted on | Fortran | default | note |",
            "|---|---|---|---|---|---|---|"]
    for a in attrs:
        cells = [a.kind, f"`{a.name}`", markdown_type(a), STATUS_TEXT[a.status], markdown_fortran(a),
                 "" if a.default == "-" else a.default, "" if a.note == "-" else a.note]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows + ["", END_MARK]) + "\n"


def check_doc(attrs, doc_path):
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN_MARK), text.find(END_MARK)
    if start < 0 or end < 0:
        fail(f"{doc_path}: the markers of the attribute table are missing")
    if text[start:end + len(END_MARK)] + "\n" != markdown(attrs):
        print(f"{doc_path}: the attribute table differs from {TABLE_PATH}; paste the generated "
              "xios-attributes.md (in the build tree, generated/attributes/) between the markers", file=sys.stderr)
        return 1
    return 0


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) == 4 and argv[1] == "--check":
        return check_doc(read_table(argv[2]), argv[3])
    if len(argv) != 3:
        fail(__doc__)
    attrs, outdir = read_table(argv[1]), argv[2]
    os.makedirs(outdir, exist_ok=True)
    files = fortran_files(attrs)
    files["schema_tables.inc"] = schema_tables(attrs)
    files["xios-attributes.md"] = markdown(attrs)
    for name, text in files.items():
        write(os.path.join(outdir, name), text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
