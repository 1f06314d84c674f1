#include "auth/secret_redaction.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/text_format.h"

namespace vernier::auth {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr absl::string_view kSecretWords[] = {"TOKEN",   "SECRET",     "PASSWORD", "PASSWD",
                                              "KEY",     "CREDENTIAL", "AUTH",     "PRIVATE",
                                              "SESSION", "COOKIE"};

// A map entry's key, when `entry` is one with a string key.
const FieldDescriptor* MapKey(const Message& entry) {
  const auto* descriptor = entry.GetDescriptor();
  if (!descriptor->options().map_entry()) return nullptr;
  const FieldDescriptor* key = descriptor->FindFieldByName("key");
  return key != nullptr && key->cpp_type() == FieldDescriptor::CPPTYPE_STRING ? key : nullptr;
}

void RedactEntry(Message& entry) {
  const FieldDescriptor* key = MapKey(entry);
  const FieldDescriptor* value = entry.GetDescriptor()->FindFieldByName("value");
  if (key == nullptr || value == nullptr || value->cpp_type() != FieldDescriptor::CPPTYPE_STRING) {
    RedactSecrets(entry);
    return;
  }
  const Reflection* reflection = entry.GetReflection();
  if (LooksSecret(reflection->GetString(entry, key))) {
    reflection->SetString(&entry, value, std::string(kRedacted));
  }
}

}  // namespace

bool LooksSecret(absl::string_view name) {
  const std::string upper = absl::AsciiStrToUpper(name);
  // A token's id and a page token name something; they hold no secret.
  if (absl::EndsWith(upper, "_ID") || absl::EndsWith(upper, "PAGE_TOKEN")) return false;
  for (absl::string_view word : kSecretWords) {
    if (absl::StrContains(upper, word)) return true;
  }
  return false;
}

std::string RedactAssignment(absl::string_view text) {
  const size_t equals = text.find('=');
  if (equals == absl::string_view::npos || equals == 0) return std::string(text);
  const absl::string_view name = text.substr(0, equals);
  if (!LooksSecret(name)) return std::string(text);
  return absl::StrCat(name, "=", kRedacted);
}

std::string RedactText(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  // The word after a secret-looking flag without a value ("--api-key V").
  bool redact_next = false;
  while (i < text.size()) {
    if (absl::ascii_isspace(static_cast<unsigned char>(text[i]))) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && !absl::ascii_isspace(static_cast<unsigned char>(text[end]))) ++end;
    const absl::string_view word = text.substr(i, end - i);
    i = end;
    if (redact_next) {
      absl::StrAppend(&out, kRedacted);
      redact_next = false;
      continue;
    }
    const size_t equals = word.find('=');
    size_t name_start = 0;
    while (name_start < word.size() &&
           (word[name_start] == '\'' || word[name_start] == '"' || word[name_start] == '-')) {
      ++name_start;
    }
    if (equals == absl::string_view::npos) {
      absl::StrAppend(&out, word);
      redact_next = name_start < word.size() &&
                    absl::StrContains(word.substr(0, name_start), "-") &&
                    LooksSecret(word.substr(name_start));
      continue;
    }
    if (equals > name_start && LooksSecret(word.substr(name_start, equals - name_start))) {
      absl::StrAppend(&out, word.substr(0, equals + 1), kRedacted);
      // A closing quote stays, so the line still reads as it did.
      if (word.size() > equals + 1 && (word.back() == '\'' || word.back() == '"')) {
        out.push_back(word.back());
      }
    } else {
      absl::StrAppend(&out, word);
    }
  }
  return out;
}

std::vector<std::string> RedactCommandLine(const std::vector<std::string>& arguments) {
  std::vector<std::string> redacted;
  redacted.reserve(arguments.size());
  bool value_of_secret_flag = false;
  for (const std::string& argument : arguments) {
    if (value_of_secret_flag) {
      redacted.emplace_back(kRedacted);
      value_of_secret_flag = false;
      continue;
    }
    redacted.push_back(RedactText(argument));
    value_of_secret_flag = absl::StartsWith(argument, "-") &&
                           argument.find('=') == std::string::npos && LooksSecret(argument);
  }
  return redacted;
}

void RedactSecrets(Message& message) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          Message* item = reflection->MutableRepeatedMessage(&message, field, i);
          if (field->is_map()) {
            RedactEntry(*item);
          } else {
            RedactSecrets(*item);
          }
        }
      } else {
        RedactSecrets(*reflection->MutableMessage(&message, field));
      }
      continue;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_STRING) continue;
    const bool secret_field = LooksSecret(field->name());
    if (field->is_repeated()) {
      // Read as a command line (a job's command, its args): the element
      // after a secret-looking flag ("--api-key", "VALUE") is a secret too.
      const auto values = reflection->GetRepeatedFieldRef<std::string>(message, field);
      const std::vector<std::string> redacted =
          RedactCommandLine(std::vector<std::string>(values.begin(), values.end()));
      for (int i = 0; i < static_cast<int>(redacted.size()); ++i) {
        reflection->SetRepeatedString(&message, field, i,
                                      secret_field ? std::string(kRedacted) : redacted[i]);
      }
    } else {
      const std::string value = reflection->GetString(message, field);
      reflection->SetString(&message, field,
                            secret_field ? std::string(kRedacted) : RedactText(value));
    }
  }
}

std::string RequestSummary(const Message& request, size_t max_bytes) {
  std::unique_ptr<Message> copy(request.New());
  copy->CopyFrom(request);
  RedactSecrets(*copy);
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.SetUseUtf8StringEscaping(false);
  std::string text;
  printer.PrintToString(*copy, &text);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > max_bytes) {
    text.resize(max_bytes);
    absl::StrAppend(&text, "...");
  }
  return text;
}

}  // namespace vernier::auth
