package codectest

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Address is nested in User.
type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    int    `json:"zip"`
}

// User is a typical record: a nested struct, a slice, a time, a pointer to
// its own type and an omitempty field.
type User struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Email   string    `json:"email,omitempty"`
	Tags    []string  `json:"tags"`
	Address Address   `json:"address"`
	Created time.Time `json:"created"`
	Score   float64   `json:"score"`
	Manager *User     `json:"manager"`
}

// Base is embedded in Item.
type Base struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"`
}

// Extra is embedded in Item through a pointer.
type Extra struct {
	Note string `json:"note"`
}

// Item embeds a struct and a pointer to one: their fields are promoted.
type Item struct {
	Base
	*Extra
	Name string `json:"name"`
}

// Celsius has its own JSON form, a string such as "21.5C".
type Celsius float64

// MarshalJSON encodes c as a string with the unit.
func (c Celsius) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(strconv.FormatFloat(float64(c), 'f', -1, 64) + "C")), nil
}

// UnmarshalJSON decodes the form MarshalJSON makes.
func (c *Celsius) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil || !strings.HasSuffix(s, "C") {
		return errors.New("want a temperature such as \"21.5C\"")
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "C"), 64)
	if err != nil {
		return errors.New("want a temperature such as \"21.5C\"")
	}
	*c = Celsius(f)
	return nil
}

// Color has a text form, which JSON carries as a string and as a map key.
type Color int

var colors = []string{"red", "green", "blue"}

// MarshalText encodes c as its name.
func (c Color) MarshalText() ([]byte, error) {
	if c < 0 || int(c) >= len(colors) {
		return nil, errors.New("no such color")
	}
	return []byte(colors[c]), nil
}

// UnmarshalText decodes a color name.
func (c *Color) UnmarshalText(b []byte) error {
	for i, n := range colors {
		if n == string(b) {
			*c = Color(i)
			return nil
		}
	}
	return errors.New("unknown color " + strconv.Quote(string(b)))
}

// Reading holds custom types as fields.
type Reading struct {
	Temp  Celsius         `json:"temp"`
	Color Color           `json:"color"`
	By    map[Color]int   `json:"by"`
	Raw   json.RawMessage `json:"raw"`
}

// Nulls holds the values that null stands for, and zero values encoded
// with and without omitempty.
type Nulls struct {
	Ptr    *int           `json:"ptr"`
	Slice  []int          `json:"slice"`
	Map    map[string]int `json:"map"`
	Any    any            `json:"any"`
	Int    int            `json:"int"`
	OmitS  string         `json:"omitS,omitempty"`
	OmitN  int            `json:"omitN,omitempty"`
	OmitP  *int           `json:"omitP,omitempty"`
	OmitSl []int          `json:"omitSl,omitempty"`
}

// Numbers holds the integer and float kinds at their limits.
type Numbers struct {
	I8  int8    `json:"i8"`
	I64 int64   `json:"i64"`
	U8  uint8   `json:"u8"`
	U64 uint64  `json:"u64"`
	F32 float32 `json:"f32"`
	F64 float64 `json:"f64"`
}

// Floats holds floats that may be non-finite.
type Floats struct {
	X []float64 `json:"x"`
}
