// HEALPix pyramids in one XML line: a file's field with
// healpix_pyramid="6..0" becomes one field per refinement level, 6 (the
// field on its own domain) down to 0, each coarser level on a domain made
// from the field's by <coarsen_healpix refinement_level="l"/> (the average
// of the nested children, in the source's indexing scheme;
// src/transform/build.cpp). docs/kmscale.md.
#include <charconv>

#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

// "6..0" (or "6-0"): the finest and the coarsest level.
bool parse_levels(const std::string& text, int& finest, int& coarsest) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return false;
  const std::string a = trim(text.substr(0, dots)), b = trim(text.substr(dots + 2));
  const auto ra = std::from_chars(a.data(), a.data() + a.size(), finest);
  const auto rb = std::from_chars(b.data(), b.data() + b.size(), coarsest);
  return !a.empty() && !b.empty() && ra.ec == std::errc{} && ra.ptr == a.data() + a.size() && rb.ec == std::errc{} &&
         rb.ptr == b.data() + b.size() && finest > coarsest && coarsest >= 0 && finest <= 29;
}

// The id of the domain at `level` made from `domain`, added to the context
// when the XML does not define it.
std::string level_domain(ContextDef& ctx, const std::string& domain, int level, const Location& where) {
  const std::string id = domain + "_z" + std::to_string(level);
  if (ctx.find_domain(id)) return id;
  const DomainDef* source = ctx.find_domain(domain);
  DomainDef d;
  d.id = id;
  d.type = "healpix";
  d.refinement_level = level;
  d.indexing_scheme = source->indexing_scheme;  // a ring level from a ring domain (the model may set it)
  d.ref = domain;
  d.where = where;
  d.extra = source->extra;
  TransformationDef t;
  t.kind = "coarsen_healpix", t.target = "domain", t.where = where;
  t.attrs.emplace("refinement_level", std::to_string(level));
  d.transformations.push_back(std::move(t));
  ctx.domains.push_back(std::move(d));
  return id;
}

}  // namespace

void expand_healpix_pyramids(ContextDef& ctx) {
  for (FileDef& file : ctx.files) {
    std::vector<FieldDef> out;
    for (FieldDef& f : file.fields) {
      if (f.healpix_pyramid.empty()) {
        out.push_back(std::move(f));
        continue;
      }
      const std::string what = "field '" + f.output_name() + "' of file '" + file.id + "': healpix_pyramid '" +
                               f.healpix_pyramid + "': ";
      int finest = 0, coarsest = 0;
      if (!parse_levels(f.healpix_pyramid, finest, coarsest)) {
        report(f.where, what + "expected <finest>..<coarsest>, e.g. 6..0 (levels 0 to 29, finest first)");
        continue;
      }
      // The field's domain: its domain_ref, or the domain of its grid.
      const GridDef* grid = f.grid_ref.empty() ? nullptr : ctx.find_grid(f.grid_ref);
      std::string domain = f.domain_ref;
      if (grid)
        for (const GridComponent& c : grid->components)
          if (c.kind == GridComponent::Kind::domain) domain = c.ref;
      const DomainDef* d = domain.empty() ? nullptr : ctx.find_domain(domain);
      if (!d || d->type != "healpix") {
        report(f.where, what + "the field's domain" + (domain.empty() ? "" : " '" + domain + "'") +
                            " is not a healpix domain");
        continue;
      }
      if (d->refinement_level && *d->refinement_level != finest) {
        report(f.where, what + "the domain '" + domain + "' has refinement_level " +
                            std::to_string(*d->refinement_level) + ", not " + std::to_string(finest));
        continue;
      }
      const std::string name = f.output_name();
      f.healpix_pyramid.clear();
      for (int level = finest; level >= coarsest; --level) {
        FieldDef copy = f;
        copy.name = name + "_z" + std::to_string(level);
        if (level < finest) {
          // The coarser levels are transformations of the field the finest
          // one takes its values from (their ids would repeat: none).
          if (copy.field_ref.empty()) copy.field_ref = f.id;
          copy.id.clear();
          const std::string made = level_domain(ctx, domain, level, f.where);
          if (grid) {
            GridDef g = *grid;
            g.id = grid->id + "_z" + std::to_string(level);
            for (GridComponent& c : g.components)
              if (c.kind == GridComponent::Kind::domain) c.ref = made;
            copy.grid_ref = g.id;
            if (!ctx.find_grid(g.id)) ctx.grids.push_back(std::move(g));
            grid = ctx.find_grid(f.grid_ref);  // push_back may have moved it
          } else {
            copy.domain_ref = made;
          }
        }
        out.push_back(std::move(copy));
      }
    }
    file.fields = std::move(out);
  }
}

}  // namespace foehn::config::detail
