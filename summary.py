import json,sys
tag=sys.argv[1]
rows=[json.loads(l) for l in open(tag+'.jsonl')]
per={}
for r in rows:
    k=r.get('row') or r.get('config','naive')
    per.setdefault(k,{})[r['id']]=r
print(f"{tag}:")
for k,a in per.items():
    n=sum(r['correct'] for r in a.values()); fail=sum(bool(r['error']) for r in a.values())
    print(f"  {k:32s} {n:3d}/{len(a)} {n/len(a):.3f}  failed {fail/len(a):.0%}")
try:
    d=json.load(open(tag+'.json')); print('  chosen:',{f['held_out']:f['chosen'] for f in d['folds']})
except Exception as e: print('  no json yet', e)
