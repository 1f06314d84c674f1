#ifndef VERNIER_TEXT_CONTROL_CHARS_H_
#define VERNIER_TEXT_CONTROL_CHARS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vernier::text {

// Control characters (C0: bytes 0x00-0x1F, and DEL 0x7F) in values that end
// up in a line of a script, a command line or a log: a newline there starts
// a new line the value's author chose, a NUL cuts the value short.
class ControlChars {
 public:
  // The offset of the first control character in `text`, if any.
  static std::optional<size_t> Find(std::string_view text);
  // How the control character `c` is spelled in an error message or an
  // escaped text: "\n", "\r", "\t", "\0" or "\x1b".
  static std::string Name(char c);
  // `text` with every control character and backslash escaped as Name
  // spells it ("\\" for a backslash), so that it stays on one line.
  static std::string Escape(std::string_view text);
  // `text` made safe to print on a terminal, so that what a name, a metric
  // id, a value or a trainer's output holds cannot clear the screen, retitle
  // the terminal or move the cursor: every C0 control character but tab and
  // newline (ESC, CR, BEL, ...), DEL, and the C1 controls (U+0080 to U+009F,
  // and the bytes 0x80 to 0x9F outside a valid UTF-8 character) escaped:
  // "\x1b", "\r", "\u009b", "\x9b". Everything else, other UTF-8 and
  // backslashes included, as given. What the CLI prints in its tables and
  // text goes through this.
  static std::string ForTerminal(std::string_view text);
  // An error message for `field` holding a control character, or nullopt when
  // it holds none: "<field> contains a control character (\n at byte 12);
  // newlines, NUL and other control characters are not allowed".
  static std::optional<std::string> Refusal(std::string_view field, std::string_view text);
};

}  // namespace vernier::text

#endif  // VERNIER_TEXT_CONTROL_CHARS_H_
