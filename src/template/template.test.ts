import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { externalDnsFunctions } from './functions.ts';
import { TemplateError } from './position.ts';
import { Template } from './template.ts';
import { GoMap } from './values.ts';

const functions = externalDnsFunctions('');
const render = (text: string, data: unknown = {}): string => Template.parse(text, { name: 'endpoint', functions }).execute(data);
const parseError = (text: string): string => {
  try {
    Template.parse(text, { name: 'endpoint', functions });
  } catch (err) {
    assert.ok(err instanceof TemplateError);
    return err.message;
  }
  return assert.fail(`${text} parsed`);
};
const execError = (text: string, data: unknown = {}): string => {
  try {
    render(text, data);
  } catch (err) {
    assert.ok(err instanceof TemplateError);
    return err.message;
  }
  return assert.fail(`${text} executed`);
};

const data = {
  Name: 'web',
  Labels: new GoMap({ app: 'shop', tier: 'front' }, 'map[string]string', ''),
  Items: [3, 1, 2],
  Nested: { inner: { value: 'x' } },
};

describe('Template: actions, pipelines and variables', () => {
  test('fields, map keys, dot and $', () => {
    assert.equal(render('{{.Name}}-{{.Labels.app}}-{{.Nested.inner.value}}', data), 'web-shop-x');
    assert.equal(render('{{with .Nested}}{{.inner.value}}{{$.Name}}{{end}}', data), 'xweb');
  });

  test('pipelines pass the value as the last argument; parentheses group', () => {
    assert.equal(render('{{.Name | printf "%s.%s" "a"}}', data), 'a.web');
    assert.equal(render('{{ (index .Items 0) }} {{ len (slice .Items 1) }}', data), '3 2');
  });

  test('variables are scoped to their block and can be reassigned', () => {
    assert.equal(render('{{$x := "a"}}{{if true}}{{$x = "b"}}{{$y := "c"}}{{$y}}{{end}}{{$x}}'), 'cb');
    assert.match(parseError('{{if true}}{{$y := 1}}{{end}}{{$y}}'), /undefined variable "\$y"/);
  });

  test('if / else if / else, with / else, and/or short-circuit', () => {
    const t = '{{if eq .Name "a"}}A{{else if eq .Name "web" "b"}}W{{else}}E{{end}}';
    assert.equal(render(t, data), 'W');
    assert.equal(render('{{with .Missing}}x{{else}}none{{end}}', {}), 'none');
    assert.equal(render('{{or .Missing "fallback"}} {{and 1 0 (index nil 1)}}', {}), 'fallback 0');
  });

  test('range over slices, maps (sorted keys), integers; break, continue, else', () => {
    assert.equal(render('{{range $i, $v := .Items}}{{$i}}={{$v}} {{end}}', data), '0=3 1=1 2=2 ');
    assert.equal(render('{{range $k, $v := .Labels}}{{$k}}:{{$v}},{{end}}', data), 'app:shop,tier:front,');
    assert.equal(render('{{range 4}}{{if eq . 1}}{{continue}}{{end}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}'), '02');
    assert.equal(render('{{range .Missing}}x{{else}}empty{{end}}', {}), 'empty');
  });

  test('define, template and block', () => {
    assert.equal(render('{{define "t"}}<{{.}}>{{end}}{{template "t" .Name}}{{block "b" 1}}[{{.}}]{{end}}', data), '<web>[1]');
  });

  test('literals: strings, raw strings, characters, numbers, booleans, nil', () => {
    assert.equal(render('{{"a\\tb"}}|{{`raw\\n`}}|{{\'x\'}}|{{0x1F}}|{{1_000}}|{{-2.5}}|{{true}}|{{print nil}}'), 'a\tb|raw\\n|120|31|1000|-2.5|true|<nil>');
  });

  test('printf verbs', () => {
    assert.equal(render('{{printf "%s %d %v %q %5s|%-3d|%x %t %%" "a" 42 .Items "q" "r" 7 255 true}}', data), 'a 42 [3 1 2] "q"     r|7  |ff true %');
    assert.equal(render('{{printf "%d" "x"}}'), '%!d(string=x)');
  });

  test('Go prints a missing map key as <no value>; index gives the zero value', () => {
    assert.equal(render('{{.Labels.none}}|{{index .Labels "none"}}|{{index .Nested "none"}}', data), '<no value>||<nil>');
  });

  test('comments and trim markers', () => {
    assert.equal(render('a  {{- /* note */ -}}  b {{- "c" }}\n{{ "d" -}}\n\te'), 'abc\nde');
  });
});

describe('Template: errors name the position', () => {
  test('parse errors', () => {
    assert.equal(parseError('{{.Name'), 'template: endpoint:1:7: unclosed action');
    assert.equal(parseError('x\n  {{ foo }}'), 'template: endpoint:2:5: function "foo" not defined');
    assert.equal(parseError('{{if 1}}'), 'template: endpoint:1:8: unexpected EOF');
    assert.equal(parseError('{{end}}'), 'template: endpoint:1:2: unexpected {{end}}');
    assert.equal(parseError('{{break}}'), 'template: endpoint:1:2: {{break}} outside {{range}}');
    assert.equal(parseError('{{/* x */ }}'), 'template: endpoint:1:9: comment ends before closing delimiter');
    assert.equal(parseError('{{ "a" | "b" }}'), 'template: endpoint:1:9: non executable command in pipeline stage 2');
    assert.equal(parseError('{{define "a"}}1{{end}}{{define "a"}}2{{end}}'), 'template: endpoint:1:31: template: multiple definition of template "a"');
  });

  test('execution errors', () => {
    assert.equal(execError('{{ .Name.Foo }}', data), 'template: endpoint:1:3: executing "endpoint" at <.Name.Foo>: can\'t evaluate field Foo in type string');
    assert.equal(execError('{{ toLower 1 }}'), 'template: endpoint:1:11: executing "endpoint" at <1>: wrong type for value; expected string; got int');
    assert.equal(
      execError('{{ toLower "a" "b" }}'),
      'template: endpoint:1:3: executing "endpoint" at <toLower>: wrong number of args for toLower: want 1 got 2',
    );
    assert.equal(
      execError('{{ index .Items 5 }}', data),
      'template: endpoint:1:3: executing "endpoint" at <index>: error calling index: index out of range: 5',
    );
    assert.equal(execError('{{ eq "a" 1 }}'), 'template: endpoint:1:3: executing "endpoint" at <eq>: error calling eq: incompatible types for comparison');
    assert.equal(execError('{{ range "s" }}{{ end }}'), 'template: endpoint:1:9: executing "endpoint" at <"s">: range can\'t iterate over s');
    assert.match(execError('{{ define "r" }}{{ template "r" }}{{ end }}{{ template "r" }}'), /exceeded maximum template depth \(1000\)/);
  });

  test('missingkey=error', () => {
    assert.throws(() => Template.parse('{{.a.b}}').execute({ a: {} }, { missingKeyError: true }), /map has no entry for key "b"/);
  });
});

describe('Template: properties', () => {
  const noActions = fc.string().filter((s) => !s.includes('{{'));

  test('a text without actions renders as itself', () => {
    fc.assert(fc.property(noActions, (text) => render(text) === text));
  });

  test('a string literal renders as itself (quoted as Go quotes it)', () => {
    const plain = (s: string): boolean => [...s].every((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f' && c !== '"' && c !== '\\');
    const literal = fc.string().filter((s) => plain(s) && !s.includes('}}'));
    fc.assert(fc.property(literal, (s) => render(`{{ "${s}" }}`) === s && render(`{{ printf "%q" "${s}" }}`) === JSON.stringify(s)));
  });

  test('trim markers remove exactly the white space beside them', () => {
    const ws = fc.stringMatching(/^[ \t\r\n]*$/);
    const word = fc.stringMatching(/^[a-z]{1,5}$/);
    fc.assert(
      fc.property(word, ws, ws, word, (left, before, after, right) => {
        return (
          render(`${left}${before}{{- "x" -}}${after}${right}`) === `${left}x${right}` &&
          render(`${left}${before}{{ "x" }}${after}${right}`) === `${left}${before}x${after}${right}`
        );
      }),
    );
  });

  test('range over a slice visits every element in order', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -1000, max: 1000 })), (xs) => render('{{range .}}{{.}},{{end}}', xs) === xs.map((x) => `${x},`).join('')));
  });

  test('eq with several arguments is "equal to any"', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 4 }), (a, others) => {
        const t = Template.parse(`{{eq .a ${others.map((_, i) => `(index .o ${i})`).join(' ')}}}`);
        return t.execute({ a, o: others }) === String(others.includes(a));
      }),
    );
  });

  test('parsing never throws anything but TemplateError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          Template.parse(text, { functions }).execute({});
        } catch (err) {
          return err instanceof TemplateError;
        }
        return true;
      }),
    );
  });
});

describe('Template: intermediate values are bounded', () => {
  test('a printf width or precision past MAX_OUTPUT fails before the string is built, naming the position', () => {
    assert.equal(
      execError('{{ $x := printf "%300000000d" 1 }}'),
      'template: endpoint:1:9: executing "endpoint" at <printf>: error calling printf: width 300000000 in "%300000000d" is larger than 1048576',
    );
    assert.match(
      execError('x{{ printf "%*s" 2000000 "a" }}'),
      /^template: endpoint:1:4: .*error calling printf: width 2000000 in "%\*s" is larger than 1048576$/,
    );
    assert.match(execError('{{ printf "%.5000000s" "a" }}'), /error calling printf: precision 5000000/);
    // Widths within the bound still work as in Go.
    assert.equal(render('{{ printf "%5d|%-3s|" 42 "a" }}'), '   42|a  |');
  });

  test('a printf result growing past MAX_OUTPUT fails', () => {
    const t = '{{ $a := printf "%1000000s" "x" }}{{ printf "%s%s" $a $a }}';
    assert.match(execError(t), /^template: endpoint:1:\d+: executing "endpoint" at <printf>: error calling printf: result longer than 1048576 characters$/);
  });

  test('replace refuses a result longer than MAX_OUTPUT before building it', () => {
    const t = '{{ $a := printf "%1000s" "" }}{{ $b := printf "%2000s" "" }}{{ replace " " $b $a }}';
    assert.match(execError(t), /at <replace>: error calling replace: result would be 2000000 characters, more than 1048576$/);
    assert.match(execError('{{ $b := printf "%2000s" "" }}{{ replace "" $b (printf "%1000s" "") }}'), /error calling replace: result would be/);
    assert.equal(render('{{ replace "." "-" "a.b.c" }}'), 'a-b-c');
  });

  test('other functions that can grow a string are capped too', () => {
    const t = '{{ $a := printf "%600000s" "" }}{{ print $a $a }}';
    assert.match(execError(t), /at <print>: error calling print: result longer than 1048576 characters$/);
    assert.match(
      execError('{{ $a := replace " " "<" (printf "%300000s" "") }}{{ html $a }}'),
      /at <html>: error calling html: result longer than 1048576 characters$/,
    );
  });

  test('all function results of one execution together are bounded', () => {
    const t = '{{ range 100 }}{{ $x := printf "%1000000s" "" }}{{ end }}';
    assert.match(execError(t), /error calling printf: function results longer than 33554432 characters in all$/);
  });

  test('a JavaScript RangeError becomes a TemplateError naming the position', () => {
    assert.equal(
      execError('{{ printf "%.200f" 1.5 }}'),
      'template: endpoint:1:3: executing "endpoint" at <printf>: error calling printf: toFixed() digits argument must be between 0 and 100',
    );
    assert.match(
      execError('ab{{ printf "%c" 1114112 }}'),
      /^template: endpoint:1:5: executing "endpoint" at <printf>: error calling printf: Invalid code point 1114112$/,
    );
  });
});
