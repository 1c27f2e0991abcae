package wire

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// RegisterCoder makes enc and dec the Beam coder of T and registers both functions as
// well: the SDK calls a coder's functions for every batch that crosses a stage, through
// reflect.Value.Call unless they are registered.
func RegisterCoder[T any](enc func(T) []byte, dec func([]byte) (T, error)) {
	register.Function1x1(enc)
	register.Function1x2(dec)
	beam.RegisterCoder(reflect.TypeFor[T](), enc, dec)
}
