//===- ResultCache.cpp - Facts of earlier parses, reused ------------------===//
#include "tilefit/frontend/ResultCache.h"

#include "AtomicFile.h"
#include "CacheSpace.h"

#include "tilefit/model/FactsJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#ifndef TILEFIT_VERSION
#define TILEFIT_VERSION "dev"
#endif

using namespace llvm;

namespace tilefit {
namespace frontend {
namespace {

constexpr const char *Schema = "tilefit-cache/1";

std::string contentHash(StringRef Bytes) {
  BLAKE3 H;
  H.update(Bytes);
  auto R = H.final<16>();
  return toHex(R, /*LowerCase=*/true);
}

/// A stored file: "TFC1", the text's size (8 bytes, little-endian), then the
/// text compressed with zlib (stored as it is where zlib is not available, with
/// size 0).
std::string pack(const std::string &Text) {
  std::string Out = "TFC1";
  uint64_t Size = Text.size();
  SmallVector<uint8_t, 0> Compressed;
  bool Zlib = compression::zlib::isAvailable();
  if (Zlib)
    compression::zlib::compress(arrayRefFromStringRef(Text), Compressed);
  else
    Size = 0;
  for (int I = 0; I < 8; ++I)
    Out += static_cast<char>((Size >> (8 * I)) & 0xff);
  if (Zlib)
    Out.append(reinterpret_cast<const char *>(Compressed.data()),
               Compressed.size());
  else
    Out += Text;
  return Out;
}

/// The text of a stored file; nothing when it is not one (or corrupted).
std::optional<std::string> unpack(StringRef Bytes) {
  if (Bytes.size() < 12 || !Bytes.starts_with("TFC1"))
    return std::nullopt;
  uint64_t Size = 0;
  for (int I = 0; I < 8; ++I)
    Size |= static_cast<uint64_t>(static_cast<unsigned char>(Bytes[4 + I]))
            << (8 * I);
  StringRef Data = Bytes.drop_front(12);
  if (Size == 0)
    return Data.str();
  if (!compression::zlib::isAvailable() || Size > (1ull << 32))
    return std::nullopt;
  SmallVector<uint8_t, 0> Out;
  if (Error E = compression::zlib::decompress(arrayRefFromStringRef(Data), Out,
                                              Size)) {
    consumeError(std::move(E));
    return std::nullopt;
  }
  return std::string(reinterpret_cast<const char *>(Out.data()), Out.size());
}

/// The text stored at \p Path, or nothing.
std::optional<std::string> readStored(const std::string &Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return unpack((*Buf)->getBuffer());
}

/// Size and modification time (ns) of \p Path, or nothing.
std::optional<std::pair<uint64_t, int64_t>> stamp(const std::string &Path) {
  sys::fs::file_status S;
  if (sys::fs::status(Path, S) || !sys::fs::is_regular_file(S))
    return std::nullopt;
  auto Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                S.getLastModificationTime().time_since_epoch())
                .count();
  return std::make_pair(S.getSize(), static_cast<int64_t>(Ns));
}

} // namespace

ResultCache::ResultCache(std::string Dir, uint64_t MaxBytes)
    : Dir(std::move(Dir)), MaxBytes(MaxBytes) {}

std::string ResultCache::defaultDir() {
  SmallString<256> P;
  if (!sys::path::cache_directory(P))
    return "";
  sys::path::append(P, "tilefit");
  return std::string(P);
}

const std::string &ResultCache::toolIdentity() {
  static const std::string Identity = [] {
    std::string Id = std::string(Schema) + " " + TILEFIT_VERSION;
    // The library's own address finds the executable it is linked into.
    static int Anchor;
    std::string Exe = sys::fs::getMainExecutable(nullptr, &Anchor);
    sys::fs::file_status S;
    if (!Exe.empty() && !sys::fs::status(Exe, S))
      Id += " " + std::to_string(S.getSize()) + ":" +
            std::to_string(
                S.getLastModificationTime().time_since_epoch().count());
    return Id;
  }();
  return Identity;
}

std::string
ResultCache::key(const std::vector<std::vector<std::string>> &CommandLines,
                 const std::string &MainFileContent) {
  BLAKE3 H;
  auto Field = [&](StringRef S) {
    H.update(std::to_string(S.size()));
    H.update(":");
    H.update(S);
  };
  Field(toolIdentity());
  for (const std::vector<std::string> &Line : CommandLines) {
    Field("command");
    for (const std::string &A : Line)
      Field(A);
  }
  Field(MainFileContent);
  auto R = H.final<20>();
  return toHex(R, /*LowerCase=*/true);
}

std::string ResultCache::entryPath(const std::string &Key) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key.substr(0, 2), Key + ".json");
  return std::string(P);
}

std::string ResultCache::inputsPath(const std::string &Id) const {
  SmallString<256> P(Dir);
  sys::path::append(P, "inputs", Id + ".json");
  return std::string(P);
}

bool ResultCache::writeAtomically(const std::string &Path,
                                  const std::string &Text) {
  const std::string Folder = sys::path::parent_path(Path).str();
  if (sys::fs::create_directories(Folder))
    return false;
  // One status for both: whether it was there, and its size.
  sys::fs::file_status Old;
  const bool Existed = !sys::fs::status(Path, Old) && sys::fs::exists(Old);
  const uint64_t Before = Existed ? Old.getSize() : 0;
  if (!writeFileAtomically(Path, pack(Text)))
    return false;
  cachespace::account(
      Folder, static_cast<int64_t>(cachespace::sizeOf(Path)) - Before,
      Existed ? 0 : 1);
  Stored = true;
  return true;
}

bool ResultCache::inputsUnchanged(const std::string &Id) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Checked.find(Id);
    if (It != Checked.end())
      return It->second;
  }
  bool Ok = true;
  std::optional<std::string> Text = readStored(inputsPath(Id));
  nlohmann::json J =
      Text ? nlohmann::json::parse(*Text, nullptr, false) : nlohmann::json();
  if (!J.is_array()) {
    Ok = false;
  } else {
    // Every file the parse read must be as it was: same size and time, else
    // same content.
    for (const nlohmann::json &In : J) {
      if (!In.is_array() || In.size() != 4 || !In[0].is_string() ||
          !In[1].is_string() || !In[2].is_number_unsigned() ||
          !In[3].is_number_integer()) {
        Ok = false;
        break;
      }
      std::string File = In[0].get<std::string>();
      auto S = stamp(File);
      if (!S) {
        Ok = false;
        break;
      }
      if (S->first == In[2].get<uint64_t>() &&
          S->second == In[3].get<int64_t>())
        continue;
      auto Content = MemoryBuffer::getFile(File, false, false);
      if (!Content ||
          contentHash((*Content)->getBuffer()) != In[1].get<std::string>()) {
        Ok = false;
        break;
      }
    }
  }
  std::lock_guard<std::mutex> Guard(Lock);
  Checked[Id] = Ok;
  return Ok;
}

std::optional<TranslationUnitFacts>
ResultCache::lookup(const std::string &Key) {
  std::string Path = entryPath(Key);
  auto Miss = [&]() -> std::optional<TranslationUnitFacts> {
    ++Misses;
    return std::nullopt;
  };
  std::optional<std::string> Text = readStored(Path);
  if (!Text)
    return Miss();
  nlohmann::json J = nlohmann::json::parse(*Text, nullptr, false);
  if (J.is_discarded() || !J.is_object() || J.value("schema", "") != Schema ||
      !J.contains("inputs") || !J["inputs"].is_string() ||
      !J.contains("facts") || !J["facts"].is_string())
    return Miss();
  std::string Id = J["inputs"].get<std::string>();
  if (Id.find_first_not_of("0123456789abcdef") != std::string::npos ||
      !inputsUnchanged(Id))
    return Miss();
  std::optional<TranslationUnitFacts> Facts =
      factsFromJson(J["facts"].get<std::string>());
  if (!Facts)
    return Miss();
  ++Hits;
  // Recently used: trim() removes the oldest first.
  int FD;
  if (!sys::fs::openFileForWrite(Path, FD, sys::fs::CD_OpenExisting,
                                 sys::fs::OF_Append)) {
    sys::fs::setLastAccessAndModificationTime(FD,
                                              std::chrono::system_clock::now());
    sys::Process::SafelyCloseFileDescriptor(FD);
  }
  return Facts;
}

void ResultCache::store(const std::string &Key,
                        const TranslationUnitFacts &Facts,
                        const std::vector<std::string> &Inputs) {
  // The files read, with their content hashes: a list many units share (the
  // main file, whose content is in the key, is left out), stored once under its
  // own hash.
  nlohmann::json Entries = nlohmann::json::array();
  for (const std::string &File : Inputs) {
    if (File == Facts.File)
      continue;
    auto Before = stamp(File);
    if (!Before)
      return; // A file that went away: nothing reliable to store.
    std::string Hash;
    {
      // The CUDA headers are read by every unit: hash each file once per run.
      std::lock_guard<std::mutex> Guard(Lock);
      auto It = Known.find(File);
      if (It != Known.end() && It->second.first == *Before)
        Hash = It->second.second;
    }
    if (Hash.empty()) {
      auto Content = MemoryBuffer::getFile(File, false, false);
      if (!Content)
        return;
      Hash = contentHash((*Content)->getBuffer());
      std::lock_guard<std::mutex> Guard(Lock);
      Known[File] = {*Before, Hash};
    }
    Entries.push_back({File, Hash, Before->first, Before->second});
  }
  std::string List =
      Entries.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string Id = contentHash(List);
  bool Have;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Have = Written.count(Id) != 0;
  }
  if (!Have) {
    // Written again once per run even if present: a corrupted copy is replaced.
    if (!writeAtomically(inputsPath(Id), List))
      return;
    std::lock_guard<std::mutex> Guard(Lock);
    Written.insert(Id);
  }
  nlohmann::json J = {
      {"schema", Schema}, {"inputs", Id}, {"facts", factsToJson(Facts)}};
  writeAtomically(
      entryPath(Key),
      J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ResultCache::trim() {
  // Only a run that wrote can have passed the bound; one that only read
  // touches nothing but what it read (CacheSpace.h).
  if (Stored)
    cachespace::cleanIfOver(Dir, MaxBytes);
}

} // namespace frontend
} // namespace tilefit
