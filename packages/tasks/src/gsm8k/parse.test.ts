import { describe, expect, it } from 'vitest';
import { DataError } from '../data-error.js';
import { extractAnnotations, formatIcotLine, parseGsm8kLine, parseIcotLine } from './parse.js';

const src = { file: 'f.jsonl', line: 7 };

describe('GSM8K annotation parsing', () => {
  it('takes each <<expr=result>> in order, without brackets', () => {
    const a = 'Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips.\n';
    expect(extractAnnotations(a, src)).toEqual(['48/2=24', '48+24=72']);
  });
  it('handles leading decimals, parentheses, fraction results and adjacent annotations', () => {
    const a = 'x <<.5*4=2>> y <<(2+3)*4=20>><<20-0.25=19.75>> z <<3/4=3/4>> w <<-3+4=1>>';
    expect(extractAnnotations(a, src)).toEqual(['.5*4=2', '(2+3)*4=20', '20-0.25=19.75', '3/4=3/4', '-3+4=1']);
  });
  it('gives no steps for an answer without annotations', () => {
    expect(parseGsm8kLine(JSON.stringify({ question: 'Q?', answer: 'He has 5.\n#### 5' }), src).steps).toEqual([]);
  });
  it('keeps the final answer as written (thousands comma) and trims it', () => {
    const p = parseGsm8kLine(JSON.stringify({ question: 'Q?', answer: 'a <<1000*1=1000>>\n####  1,000 ' }), src);
    expect(p).toEqual({ question: 'Q?', steps: ['1000*1=1000'], answer: '1,000' });
  });
  it.each([
    ['a <<1+1=2 b', /unbalanced/],
    ['a 1+1=2>> b', /unbalanced/],
    ['a <<1+1>> b', /not "expression=result"/],
    ['a <<x=2>> b', /not "expression=result"/],
  ])('rejects %j naming file, line and field', (text, re) => {
    expect(() => extractAnnotations(text, src)).toThrow(re);
    expect(() => extractAnnotations(text, src)).toThrow(/^f\.jsonl:7 field "answer"/);
  });
  it('rejects records without exactly one ####, bad JSON and missing fields', () => {
    expect(() => parseGsm8kLine(JSON.stringify({ question: 'Q', answer: 'no hashes' }), src)).toThrow(
      /f\.jsonl:7 field "answer": expected exactly one "####"/,
    );
    expect(() => parseGsm8kLine(JSON.stringify({ question: 'Q', answer: '#### 1 #### 2' }), src)).toThrow(/found 2/);
    expect(() => parseGsm8kLine('{"question": "Q"', src)).toThrow(/f\.jsonl:7: invalid JSON/);
    expect(() => parseGsm8kLine(JSON.stringify({ answer: '#### 1' }), src)).toThrow(/field "question": missing/);
    expect(() => parseGsm8kLine(JSON.stringify({ question: 'Q', answer: 'x ####  ' }), src)).toThrow(
      /empty final answer/,
    );
    try {
      parseGsm8kLine('[]', src);
    } catch (e) {
      expect(e).toBeInstanceOf(DataError);
      expect((e as DataError).line).toBe(7);
    }
  });
});

describe('iCoT line parsing', () => {
  it('splits question, steps and answer and round-trips', () => {
    const line = 'Grass grows .5 inches.  How much?||<<4-2=2>> <<2/.5=4>> #### 300';
    const p = parseIcotLine(line, src);
    expect(p).toEqual({ question: 'Grass grows .5 inches.  How much?', steps: ['4-2=2', '2/.5=4'], answer: '300' });
    expect(formatIcotLine(p)).toBe(line);
  });
  it('treats an empty chain as no steps (not [""])', () => {
    const p = parseIcotLine('How many?|| #### 26', src);
    expect(p.steps).toEqual([]);
    expect(formatIcotLine(p)).toBe('How many?|| #### 26');
  });
  it('names the field of a malformed step', () => {
    expect(() => parseIcotLine('Q||<<1+1=2>>  <<2+2=4>> #### 4', src)).toThrow(/field "steps\[1\]"/);
    expect(() => parseIcotLine('Q||<<1+1=2>> 2+2=4 #### 4', src)).toThrow(/field "steps\[1\]"/);
    expect(() => parseIcotLine('Q <<1+1=2>> #### 4', src)).toThrow(/field "question": no "\|\|"/);
    expect(() => parseIcotLine('Q||<<1+1=2>> 4', src)).toThrow(/field "answer"/);
  });
});
