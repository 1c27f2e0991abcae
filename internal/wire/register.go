package wire

import (
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/funcx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/coder"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// RegisterCoder makes enc and dec the Beam coder of T, a named type; call it in init.
// enc must be deterministic (equal values, equal bytes): Beam is told so.
//
// The pipeline names a coder's functions and a worker looks them up by that name. They
// are registered under names made from T, not under their symbols: the closures and
// methods of a generic type share one symbol across its instantiations (Batch[T]). The
// registration also gives the SDK a typed caller for each, which it would otherwise
// call through reflect.Value.Call for every batch that crosses a stage.
func RegisterCoder[T any](enc func(T) []byte, dec func([]byte) (T, error)) {
	t := reflect.TypeFor[T]()
	key, ok := runtime.TypeKey(t)
	if !ok {
		panic(fmt.Sprintf("wire.RegisterCoder: %v is not a named type", t))
	}
	register.Function1x1(enc)
	register.Function1x2(dec)
	beam.RegisterType(t)
	encName, decName := "wire.encode["+key+"]", "wire.decode["+key+"]"
	runtime.RegisterFunctionWithName(encName, enc)
	runtime.RegisterFunctionWithName(decName, dec)
	coder.RegisterDeterministicCoderWithFuncs(t, named(encName, enc), named(decName, dec))
}

func named(name string, fn any) *funcx.Fn {
	f, err := funcx.New(reflectx.MakeFuncWithName(name, fn))
	if err != nil {
		panic(fmt.Sprintf("wire.RegisterCoder: %s: %v", name, err))
	}
	return f
}
