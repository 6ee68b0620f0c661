// Stage 1: XML text -> Node tree, with line numbers and src= includes.
//
// pugixml keeps no line numbers, only byte offsets (offset_debug); we keep
// the offsets of the newlines of each file and turn an offset into a line by
// binary search. Included files are parsed by the same code, so an error in
// an included file names that file and its line.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <pugixml.hpp>

#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace fs = std::filesystem;

namespace {

// A limit on element nesting: the conversion below is recursive, and bad
// input must give an error, not a stack overflow.
constexpr int kMaxDepth = 256;

struct Source {
  std::string name;  // as shown in messages
  std::string dir;   // base directory for this file's includes
  std::vector<std::size_t> newlines;

  Source(std::string n, std::string d, std::string_view text) : name(std::move(n)), dir(std::move(d)) {
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines.push_back(i);
  }
  Location at(std::ptrdiff_t offset) const {
    if (offset < 0) offset = 0;
    // Line = 1 + number of newlines strictly before the offset.
    const auto it = std::lower_bound(newlines.begin(), newlines.end(), static_cast<std::size_t>(offset));
    return Location{name, static_cast<int>(it - newlines.begin()) + 1, {}};
  }
};

class TreeReader {
 public:
  // `parent_path` is the element path of the including element's parent
  // ("" for the main file): an included root stands for the including element.
  Node read(std::string_view xml, const std::string& name, const std::string& dir, const std::string& key, int depth,
            const std::string& parent_path = "") {
    // A UTF-8 byte order mark would shift pugixml's offsets against ours.
    if (xml.substr(0, 3) == "\xEF\xBB\xBF") xml.remove_prefix(3);
    const Source source(name, dir, xml);

    pugi::xml_document doc;
    const pugi::xml_parse_result result =
        doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!result) fail(source.at(result.offset), std::string("XML syntax error: ") + result.description());

    pugi::xml_node root;
    for (pugi::xml_node child : doc.children()) {
      if (child.type() != pugi::node_element) continue;
      if (root)
        fail(source.at(child.offset_debug()),
             "more than one root element (<" + std::string(root.name()) + "> and <" + child.name() + ">)");
      root = child;
    }
    if (!root) fail(Location{name, 0, {}}, "no root element");

    stack_.push_back({key, name});
    Node node = convert(root, source, depth, parent_path);
    stack_.pop_back();
    return node;
  }

 private:
  struct Open {
    std::string key, name;
  };
  std::vector<Open> stack_;  // files being read, outermost first

 public:
  std::vector<ConfigWarning>* warnings_ = nullptr;

 private:
  // The element path of `x`: its parent's, then "name[attr=value]" with the
  // first attribute that tells it apart: id, else its own reference
  // (field_ref on a field, domain_ref on a domain, ..., group_ref on a
  // field_group), else name. The root <simulation> is left out.
  static std::string path_of(const pugi::xml_node& x, const std::string& parent_path, int depth) {
    const std::string element = x.name();
    if (depth == 0 && element == "simulation") return "";
    std::string step = element;
    const std::string own_ref = element == "field_group" ? "group_ref" : element + "_ref";
    for (const std::string& key : {std::string("id"), own_ref, std::string("name")}) {
      if (const pugi::xml_attribute a = x.attribute(key.c_str())) {
        step += "[" + key + "=" + trim(a.value()) + "]";
        break;
      }
    }
    return parent_path.empty() ? step : parent_path + "/" + step;
  }

  Node convert(const pugi::xml_node& x, const Source& source, int depth, const std::string& parent_path) {
    Node node;
    node.name = x.name();
    node.where = source.at(x.offset_debug());
    node.where.path = path_of(x, parent_path, depth);
    if (depth > kMaxDepth) fail(node.where, "elements nested more than " + std::to_string(kMaxDepth) + " deep");

    std::optional<std::string> src;
    for (pugi::xml_attribute a : x.attributes()) {
      const std::string attr_name = a.name();
      // pugixml accepts repeated attributes; XML does not, and which one
      // would win is a guess we should not make for the user.
      if (attr_name == "src" ? src.has_value() : node.attr(attr_name) != nullptr)
        fail(node.where, "attribute '" + attr_name + "' appears twice on <" + node.name + ">");
      if (attr_name == "src")
        src = a.value();
      else
        node.attrs.push_back(Attr{attr_name, trim(a.value()), node.where, "", false});  // " t " and "t" are one id
    }

    for (pugi::xml_node c : x.children()) {
      if (c.type() == pugi::node_element) {
        node.children.push_back(convert(c, source, depth + 1, node.where.path));
      } else if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        const std::string_view value = c.value();
        const auto first = value.find_first_not_of(" \t\r\n");
        if (first != std::string_view::npos && node.text_where.line == 0) {
          // Count newlines in the leading blanks rather than adding the index
          // to the offset: parse_eol may have shortened "\r\n" in the value.
          Location where = source.at(c.offset_debug());
          where.path = node.where.path;
          where.line += static_cast<int>(std::count(value.begin(), value.begin() + first, '\n'));
          node.text_where = where;
        }
        node.text += value;
      }
    }
    node.text = trim(node.text);

    if (src) include(node, *src, source, depth, parent_path);
    return node;
  }

  // Splices the file named by src= into `node`: the included root's children
  // come first, then the node's own; the included root's attributes fill in
  // those the including element does not set (the including element wins, as
  // a child wins over its group).
  void include(Node& node, const std::string& src, const Source& source, int depth, const std::string& parent_path) {
    if (trim(src).empty()) fail(node.where, "empty src attribute on <" + node.name + ">");
    fs::path path(trim(src));
    if (path.is_relative() && !source.dir.empty()) path = fs::path(source.dir) / path;
    const std::string shown = path.lexically_normal().string();
    const std::string key = canonical_key(shown);

    for (std::size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].key != key) continue;
      std::string chain;
      for (std::size_t j = i; j < stack_.size(); ++j) chain += stack_[j].name + " -> ";
      fail(node.where, "include cycle: " + chain + shown);
    }

    std::string text;
    if (!read_text_file(shown, text)) fail(node.where, "cannot read included file '" + shown + "'");
    Node included = read(text, shown, path.parent_path().string(), key, depth, parent_path);

    if (included.name != node.name)
      fail(included.where, "the root element of an included file must be <" + node.name +
                               "> like the element that includes it (" + node.where.str() + "), not <" + included.name +
                               ">");
    for (Attr& a : included.attrs) {
      a.included = true;
      const Attr* own = node.attr(a.name);
      if (!own) {
        node.attrs.push_back(std::move(a));
      } else if (warnings_ && own->value != a.value) {
        warnings_->push_back({own->where, a.name + "='" + own->value + "' on <" + node.name + "> overrides " + a.name +
                                              "='" + a.value + "' set on the root of the included file (" +
                                              a.where.str() + ")"});
      }
    }
    for (Node& own : node.children) included.children.push_back(std::move(own));
    node.children = std::move(included.children);
    if (node.text.empty()) {
      node.text = std::move(included.text);
      node.text_where = included.text_where;
    }
  }
};

}  // namespace

const Attr* Node::attr(std::string_view attr_name) const {
  for (const Attr& a : attrs)
    if (a.name == attr_name && !a.bad) return &a;
  return nullptr;
}

bool read_text_file(const std::string& path, std::string& out) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(buffer).str();
  return true;
}

std::string canonical_key(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : canonical.string();
}

Node read_tree(std::string_view xml, const std::string& name, const std::string& base_dir, const std::string& key,
               std::vector<ConfigWarning>* warnings) {
  TreeReader reader;
  reader.warnings_ = warnings;
  return reader.read(xml, name, base_dir, key, 0);
}

}  // namespace foehn::config::detail
