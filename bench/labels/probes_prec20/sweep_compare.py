import json, sys
a=json.load(open('/work/wt/_notes/sweep30_final2.json'))
p=json.load(open('/tmp/prec20_pop11_main.json'))
b=json.load(open(sys.argv[1]))
base={**a,**p}
k2=lambda f:(f['path'],f['line'],f['code'],f['severity'])
tot=[0,0,0,0]; pt=[0,0,0,0]
for z in b:
    if z not in base: print('NEW ZOO (no baseline)', z); continue
    A,B=base[z],b[z]
    t = pt if z in p else tot
    t[0]+=len(A);t[1]+=len(B);t[2]+=sum(f['severity']=='error' for f in A);t[3]+=sum(f['severity']=='error' for f in B)
    SA={k2(f):f for f in A}; SB={k2(f):f for f in B}
    for x in sorted(set(SA)-set(SB)): print('-',z.split(' ')[0],x, SA[x]['message'][:100])
    for x in sorted(set(SB)-set(SA)): print('+',z.split(' ')[0],x, SB[x]['message'][:100])
    for x in sorted(set(SA)&set(SB)):
        if SA[x]['exporters']!=SB[x]['exporters']: print('~',z.split(' ')[0],x,len(SA[x]['exporters']),'->',SB[x]['exporters'])
for z in base:
    if z not in b: print('MISSING ZOO', z)
print('earlier zoos: findings',tot[0],'->',tot[1],'errors',tot[2],'->',tot[3])
print('population 11: findings',pt[0],'->',pt[1],'errors',pt[2],'->',pt[3])
