//===- ReasonJson.h - A Reason in JSON, both ways (model-private) -*- C++
//-*-===//
//
// `null` for none, else `{"kind": "<id>", "args": [...], "because": R}`, R
// the reason it rests on or `null`. Every key is required. Reading a kind that
// Reasons.def does not name throws nlohmann's other_error. Templates, for the
// facts' json and the report's ordered_json alike.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_LIB_REASONJSON_H
#define TILEFIT_MODEL_LIB_REASONJSON_H

#include "tilefit/model/Reason.h"

#include <nlohmann/json.hpp>

namespace tilefit {

template <typename Json> void to_json(Json &J, const Reason &R) {
  if (R.empty()) {
    J = nullptr;
    return;
  }
  J = Json::object();
  J["kind"] = std::string(reasonId(R.Kind));
  J["args"] = R.Args;
  J["because"] = nullptr;
  if (!R.Because.empty())
    J["because"] = R.Because.front();
}

template <typename Json> void from_json(const Json &J, Reason &R) {
  R.clear();
  if (J.is_null())
    return;
  const std::string Id = J.at("kind").template get<std::string>();
  std::optional<ReasonKind> K = reasonKind(Id);
  if (!K)
    throw nlohmann::detail::other_error::create(
        501, "unknown reason kind '" + Id + "'", &J);
  R.Kind = *K;
  R.Args = J.at("args").template get<std::vector<std::string>>();
  if (!J.at("because").is_null())
    R.Because.push_back(J.at("because").template get<Reason>());
}

} // namespace tilefit

#endif
