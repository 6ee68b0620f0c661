# Every surface that repeats per XIOS kind x attribute is generated at build
# time from one table, src/config/xios_attributes.tsv, by gen_attributes.py
# (Python standard library only): the XML schema tables and the refused
# attributes (included by src/config/schema.cpp), the Fortran routines
# xios_set/get/is_defined_<kind>_attr (included by bindings/fortran/xios.f90)
# and the Markdown table of docs/xios-compatibility.md. The outputs live in
# the build tree; nothing generated is committed.
# Also included by the separate fuzzing project (tests/fuzz), hence paths
# from this file rather than from the project.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
get_filename_component(foehn_root ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
set(FOEHN_ATTRIBUTES_TABLE ${foehn_root}/src/config/xios_attributes.tsv)
set(FOEHN_ATTRIBUTES_GENERATOR ${foehn_root}/cmake/gen_attributes.py)
set(FOEHN_ATTRIBUTES_DIR ${PROJECT_BINARY_DIR}/generated/attributes)
set(foehn_attributes_outputs
    ${FOEHN_ATTRIBUTES_DIR}/schema_tables.inc ${FOEHN_ATTRIBUTES_DIR}/xios_attr_public.inc
    ${FOEHN_ATTRIBUTES_DIR}/xios_attr_set.inc ${FOEHN_ATTRIBUTES_DIR}/xios_attr_get.inc
    ${FOEHN_ATTRIBUTES_DIR}/xios_attr_defined.inc ${FOEHN_ATTRIBUTES_DIR}/xios-attributes.md
    ${FOEHN_ATTRIBUTES_DIR}/xios_handle_types.inc ${FOEHN_ATTRIBUTES_DIR}/xios_handle_public.inc
    ${FOEHN_ATTRIBUTES_DIR}/xios_handles.inc ${FOEHN_ATTRIBUTES_DIR}/xios_modules.f90)
add_custom_command(
  OUTPUT ${foehn_attributes_outputs}
  COMMAND Python3::Interpreter ${FOEHN_ATTRIBUTES_GENERATOR} ${FOEHN_ATTRIBUTES_TABLE} ${FOEHN_ATTRIBUTES_DIR}
  DEPENDS ${FOEHN_ATTRIBUTES_GENERATOR} ${FOEHN_ATTRIBUTES_TABLE}
  COMMENT "Generating the XIOS attribute surfaces from src/config/xios_attributes.tsv")
# Libraries that include the outputs depend on this target (add_dependencies),
# so the files exist before their sources compile.
add_custom_target(foehn_attributes DEPENDS ${foehn_attributes_outputs})
