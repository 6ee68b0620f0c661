// Internal stages of the reader, in the order they run:
//
//   xml_tree.cpp  text -> Node tree (pugixml; line numbers; src= includes)
//   schema.cpp    which attributes each element takes and their value types
//   collect.cpp   Node tree of one context -> Elements per kind, with the
//                 attributes of enclosing *_definition/*_group elements
//                 inherited (the element's own attribute wins); duplicate ids
//   resolve.cpp   *_ref inheritance (field_ref, domain_ref, ...), reference
//                 checks, conversion to the structs of config.h
//
// Every attribute keeps the Location of the element it was written on, so an
// error found late (a bad reference inherited from a group, say) still points
// at the line where the user wrote it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/config.h"

namespace foehn::config::detail {

struct Attr {
  std::string name;
  std::string value;
  Location where;  // the element the attribute is written on
  // How it reached the element it is on now (AttributeOrigin::via): empty
  // for the element's own; set as groups and references pass it on.
  std::string via;
  bool included = false;  // written on the root of an included file
  // Reported as unknown or badly typed: reading goes on (to report every
  // error of a file) but no later stage sees the attribute.
  mutable bool bad = false;
};

// One XML element after includes have been spliced in.
struct Node {
  std::string name;
  std::vector<Attr> attrs;  // document order; never contains src
  std::string text;         // character data, trimmed
  Location text_where;      // where non-blank character data starts (if any)
  Location where;
  std::vector<Node> children;  // elements only

  const Attr* attr(std::string_view attr_name) const;  // skips bad attributes
};

// Fields of files with healpix_pyramid="6..0" (healpix_pyramid.cpp): one
// field per level, named <name>_z<level>, the coarser ones on domains
// <domain>_z<level> made by <coarsen_healpix> (added when absent).
void expand_healpix_pyramids(ContextDef& ctx);

// A fatal error: reading stops (syntax errors, includes, wrong root).
[[noreturn]] void fail(const Location& where, const std::string& message);
// An error after which reading can go on; all are thrown together at the end
// of the read (config.cpp). Outside a read, throws like fail().
void report(const Location& where, const std::string& message);

// Parses `xml` (named `name` in messages) and every file it includes. Include
// paths are relative to `base_dir`; `key` identifies this text for include
// cycle detection (a canonical path, or the name for in-memory text).
// Attributes of an included root hidden by the including element's are
// added to `warnings` (when given).
Node read_tree(std::string_view xml, const std::string& name, const std::string& base_dir, const std::string& key,
               std::vector<ConfigWarning>* warnings = nullptr);
// Reads a whole regular file; false if it cannot be read.
bool read_text_file(const std::string& path, std::string& out);
// A key that is the same for every spelling of a path (for cycle detection).
std::string canonical_key(const std::string& path);

// ---- schema ----------------------------------------------------------------

// The attribute sets. Groups and *_definition roots take the attributes of
// their element kind.
enum class Schema {
  simulation,
  context,
  calendar,
  variable,
  variable_group,
  axis,
  domain,
  scalar,
  grid,  // its <domain>/<axis>/<scalar> children take domain, axis, scalar
  field,
  file_field_group,  // file_field_group = field + group_ref
  file,
};

// Reports an unknown attribute (with a suggestion) or a value that does not
// fit the attribute's type, and marks that attribute bad.
void check_attributes(const Node& node, Schema schema);
// Reports "unknown element <x> in <parent>", suggesting the closest allowed
// name, or saying that a known XIOS element is not supported. The caller
// skips the element.
void unknown_element(const Node& child, const Node& parent, const std::vector<std::string_view>& allowed);
// Spatial transformations (transformations.cpp): whether `child` is one the
// reader accepts inside `parent` (a domain, axis or scalar); the check of
// its attributes (reported at their lines); and its definition.
bool is_transformation(const Node& child, const Node& parent);
void check_transformation(const Node& child, const Node& parent);
TransformationDef make_transformation(const Node& child, const Node& parent);
// Reports non-blank character data (only <field> and <variable> carry text).
void check_no_text(const Node& node);

// ---- collect ---------------------------------------------------------------

using AttrMap = std::map<std::string, Attr, std::less<>>;

// One element of a kind with the attributes it inherits from its enclosing
// groups already applied.
struct Element {
  const Node* node = nullptr;  // null for fields included by group_ref
  AttrMap attrs;               // includes the element's own id, never a group's
  Location where;
  const Element* ref_target = nullptr;  // set by resolve: the *_ref target, if any

  const std::string* get(std::string_view attr_name) const;
};

struct RawFile {
  Element file;
  std::vector<Element> fields;  // in document order, group_ref expanded
  std::vector<const Node*> variables;
};

struct RawContext {
  const Node* node = nullptr;
  const Node* calendar = nullptr;
  std::vector<const Node*> variables;
  std::vector<Element> axes, domains, scalars, grids, fields;
  std::vector<RawFile> files;
  std::vector<ConfigWarning> warnings;  // added to by resolve (references)
  // Passed on to ContextDef as they are (config.h).
  std::map<std::string, std::vector<std::string>, std::less<>> group_ids, field_group_members;
};

RawContext collect_context(const Node& context);

// ---- grid children (grid_children.cpp) --------------------------------------

// What a grid's <domain>/<axis>/<scalar> child stands for: the id of the
// element of its kind it names (empty for an anonymous scalar).
struct GridChild {
  std::string id;
  std::string ref;              // its *_ref, if any
  bool reference_only = false;  // only a *_ref (resolve checks the target)
  bool defined = false;         // the child is a new element (appended to its kind's)
  // How a new element's name is settled once references are resolved:
  // inherited as any attribute; its own only (transformed: its output names
  // are its own); or, when it has none, the reference's id (XIOS's output
  // name of an anonymous element).
  enum class Name { inherited, own_only, ref_id_if_empty } name = Name::inherited;
};
using GridChildren = std::map<const Node*, GridChild>;
// Appends to raw.domains/axes/scalars the elements that grids' children
// define, sets the attributes of a child naming an existing element on that
// element (warning when it replaces a value), and says what each child is.
GridChildren define_grid_children(RawContext& raw);

// ---- resolve ---------------------------------------------------------------

ContextDef resolve_context(RawContext& raw);
// One SharedLocation per distinct place (file, line, element path), for
// the origins of one context.
class LocationTable {
 public:
  SharedLocation share(const Location& where);

 private:
  std::unordered_map<std::string, SharedLocation> places_;
};
// The origins of an element's attributes (origins.cpp), their places shared
// through `places`.
AttributeOrigins origins_of(const Element& e, LocationTable& places);
// Where an attribute came from, for messages: "file:line" plus the via text.
std::string describe(const Attr& a);
// Fills `e` with the attributes of its reference target that it lacks, and
// warns (into `warnings`) when an attribute it inherited from a group hides
// a different value of the target's.
void inherit_from_target(Element& e, std::string_view ref_attr, std::vector<ConfigWarning>& warnings);
// Checks a <variable>'s type and value and returns it.
Variable make_variable(const Node& node);

}  // namespace foehn::config::detail
