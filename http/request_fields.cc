#include "http/request_fields.h"

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace vernier::http {
namespace {

using google::protobuf::FieldDescriptor;

const FieldDescriptor* FindField(const google::protobuf::Descriptor& descriptor,
                                 absl::string_view name) {
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const FieldDescriptor* field = descriptor.field(i);
    if (field->name() == name || field->json_name() == name) return field;
  }
  return nullptr;
}

absl::Status NotA(absl::string_view name, absl::string_view text, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter \"", name, "\": \"", text, "\" is not ", what));
}

}  // namespace

absl::Status SetFieldFromText(absl::string_view name, absl::string_view text,
                              google::protobuf::Message& message) {
  const FieldDescriptor* field = FindField(*message.GetDescriptor(), name);
  if (field == nullptr || field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    return absl::InvalidArgumentError(absl::StrCat("unknown query parameter \"", name, "\""));
  }
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  const bool repeated = field->is_repeated();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) return NotA(name, text, "an integer");
      repeated ? reflection.AddInt32(&message, field, value)
               : reflection.SetInt32(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) return NotA(name, text, "an integer");
      repeated ? reflection.AddInt64(&message, field, value)
               : reflection.SetInt64(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) return NotA(name, text, "a non-negative integer");
      repeated ? reflection.AddUInt32(&message, field, value)
               : reflection.SetUInt32(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) return NotA(name, text, "a non-negative integer");
      repeated ? reflection.AddUInt64(&message, field, value)
               : reflection.SetUInt64(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double value = 0;
      if (!absl::SimpleAtod(text, &value)) return NotA(name, text, "a number");
      repeated ? reflection.AddDouble(&message, field, value)
               : reflection.SetDouble(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float value = 0;
      if (!absl::SimpleAtof(text, &value)) return NotA(name, text, "a number");
      repeated ? reflection.AddFloat(&message, field, value)
               : reflection.SetFloat(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool value = false;
      if (text == "true" || text == "1") {
        value = true;
      } else if (text != "false" && text != "0") {
        return NotA(name, text, "true or false");
      }
      repeated ? reflection.AddBool(&message, field, value)
               : reflection.SetBool(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const google::protobuf::EnumValueDescriptor* value =
          field->enum_type()->FindValueByName(std::string(text));
      int number = 0;
      if (value == nullptr && absl::SimpleAtoi(text, &number)) {
        value = field->enum_type()->FindValueByNumber(number);
      }
      if (value == nullptr) {
        return NotA(name, text, absl::StrCat("a value of ", field->enum_type()->name()));
      }
      repeated ? reflection.AddEnum(&message, field, value)
               : reflection.SetEnum(&message, field, value);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_STRING:
      repeated ? reflection.AddString(&message, field, std::string(text))
               : reflection.SetString(&message, field, std::string(text));
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown query parameter \"", name, "\""));
}

}  // namespace vernier::http
