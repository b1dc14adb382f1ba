0 // regression: JSON.stringify leaked an array element when its index string could not be made (the VM was retired)
return JSON.stringify([{ a: 1 }, [2]])
