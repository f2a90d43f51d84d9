//===- FactsJson.h - Translation-unit facts to JSON and back ----*- C++ -*-===//
//
// The facts of one parse, stored by the result cache: what the front end found,
// before any check. Reading never throws: a malformed or foreign document is an
// error.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_FACTSJSON_H
#define TILEFIT_MODEL_FACTSJSON_H

#include "tilefit/model/Facts.h"

#include <optional>
#include <string>

namespace tilefit {

/// The facts as one JSON document (compact).
std::string factsToJson(const TranslationUnitFacts &Facts);

/// The facts from factsToJson's output; nothing when \p Text is not such a
/// document.
std::optional<TranslationUnitFacts> factsFromJson(const std::string &Text);

} // namespace tilefit

#endif
