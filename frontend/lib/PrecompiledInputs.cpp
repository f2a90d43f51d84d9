//===- PrecompiledInputs.cpp - What a parse loads instead of parsing ------===//
#include "PrecompiledInputs.h"

namespace tilefit {
namespace frontend {

void makeReadOnly(clang::CompilerInvocation &Inv) {
  Inv.getDependencyOutputOpts() = clang::DependencyOutputOptions();
  clang::FrontendOptions &FO = Inv.getFrontendOpts();
  FO.OutputFile.clear();
  FO.StatsFile.clear();
  FO.TimeTracePath.clear();
  FO.Plugins.clear();
  FO.AddPluginActions.clear();
  FO.PluginArgs.clear();
  FO.ActionName.clear();
  FO.LLVMArgs.clear();
  Inv.getCodeGenOpts().PassPlugins.clear();
  Inv.getDiagnosticOpts().DiagnosticLogFile.clear();
  Inv.getDiagnosticOpts().DiagnosticSerializationFile.clear();
}

} // namespace frontend
} // namespace tilefit
